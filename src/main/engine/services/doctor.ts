/** `doctor`: what this machine and the rig's hosts have, and what a seat home would make unsafe. */
import type { DoctorCheck } from '../../../shared/contract';
import { fail, type Result } from '../../../shared/errors';
import type { Fs } from '../deps';
import type { Engine } from '../engine';
import { homeUnsafe, inspectHome } from '../home-safety';
import { CONFIG_MAX_BYTES, type ReadFs, readRegularText } from '../read-file';
import { AGENT_RUNTIMES, RUNTIMES, runtimeById } from '../runtimes';
import { scrubIdentity } from '../runtimes/env';
import { runtimeOnPath } from '../runtimes/install';
import { schemaVersion } from '../store/db';
import { checkHost } from './hosts';
import { stuckServerCheck } from './stuck-server';
import { seatPrepInput } from '../seats/launch';

/**
 * The checks a runtime makes of each config home this machine's seats of it use (Codex: whether its
 * background daemon is on), one per home, naming the seats that share it.
 */
function homeChecks(engine: Engine): DoctorCheck[] {
  const checks: DoctorCheck[] = [];
  for (const r of RUNTIMES) {
    if (!r.homeCheck) continue;
    const homes = new Map<string, string[]>();
    for (const seat of engine.store.rigs.seats().filter((s) => s.host === 'local' && s.runtime === r.id)) {
      const home = engine.seatHome(seat);
      if (home) homes.set(home, [...(homes.get(home) ?? []), seat.seat]);
    }
    for (const [home, seats] of homes) checks.push(r.homeCheck(home, seats, (path) => readText(engine.ports.fs, path)));
  }
  return checks;
}

function readText(fs: ReadFs, path: string): string | undefined {
  try {
    return readRegularText(path, CONFIG_MAX_BYTES, fs);
  } catch {
    return undefined;
  }
}

/** The server on Rigdesk's socket: a stuck one is named (and with `fix` ended) before anything waits on it. */
async function tmuxServerChecks(engine: Engine, fix: boolean): Promise<DoctorCheck[]> {
  const stuck = await stuckServerCheck(engine, fix);
  if (stuck && !stuck.ok) return [stuck];
  const listing = await engine.own.listPanes();
  const check: DoctorCheck = {
    check: 'tmux server',
    ok: listing.ok,
    detail: listing.ok
      ? `${engine.ownKey}: ${listing.running ? `running, ${listing.panes.length} pane(s)` : 'not started yet (starts with the first seat)'}`
      : listing.message,
  };
  return stuck ? [stuck, check] : [check];
}

export async function doctor(engine: Engine, opts: { fix?: boolean } = {}): Promise<Result<{ checks: DoctorCheck[] }>> {
  const checks: DoctorCheck[] = [];
  const v = await engine.deps.exec('tmux', ['-V'], { timeoutMs: 5000 });
  const m = /tmux (?:next-)?(\d+)\.(\d+)/.exec(v.stdout);
  const tmuxOk = v.code === 0 && !!m && (Number(m[1]) > 3 || (Number(m[1]) === 3 && Number(m[2]) >= 2));
  checks.push({
    check: 'tmux',
    ok: tmuxOk,
    detail: v.code === 0 ? v.stdout.trim() : `not runnable (${v.spawnError ?? v.stderr.trim()})`,
    ...(tmuxOk ? {} : { hint: 'Install tmux 3.2 or newer (apt-get install tmux, brew install tmux).' }),
  });
  checks.push(...(await tmuxServerChecks(engine, opts.fix === true)));
  const env = scrubIdentity(engine.deps.env);
  for (const r of AGENT_RUNTIMES) {
    const { path: p, missing } = runtimeOnPath(r, env.PATH, engine.ports.fs);
    const ok = missing.length === 0;
    checks.push({
      check: `${r.id} CLI`,
      ok,
      detail: ok ? p! : `${missing.join(', ')} not on PATH${p ? ` (${r.binary} is ${p})` : ''}`,
      ...(ok ? {} : { hint: r.installHint }),
    });
  }
  // A runtime that must make a seat's config safe before launch says here what launch would do.
  for (const seat of engine.store.rigs.seats().filter((s) => s.host === 'local')) {
    const adapter = runtimeById(seat.runtime);
    const r = adapter?.prepareSeat?.(seatPrepInput(engine.ports, seat, { ...env, ...seat.env }), { write: false });
    if (!r) continue;
    const check = adapter!.prepareCheckName?.(seat.seat) ?? `${seat.runtime} config (${seat.seat})`;
    checks.push(
      r.ok
        ? { check, ok: true, detail: r.detail }
        : { check, ok: false, detail: r.message, ...(r.hint ? { hint: r.hint } : {}) },
    );
  }
  checks.push(...homeChecks(engine));
  // Every known host, checked at once (one round trip each): ssh, tmux, and the CLIs its seats need.
  const hosts = engine.store.hosts.all().map((h) => h.name);
  for (const h of await Promise.all(hosts.map((name) => checkHost(engine, name).then((r) => ({ name, r }))))) {
    const check = `host ${h.name}`;
    if (!h.r.ok) checks.push({ check, ok: false, detail: h.r.message, ...(h.r.hint ? { hint: h.r.hint } : {}) });
    else {
      const c = h.r.check;
      const ok = c.missing.length === 0;
      checks.push({
        check,
        ok,
        detail: `ssh ${c.ssh.rttMs ?? '?'} ms, ${c.tmux.detail || 'no tmux'}${ok ? '' : `; missing: ${c.missing.join(', ')}`}`,
        ...(ok ? {} : { hint: `Install what is missing on ${h.name}; rigdesk hosts check ${h.name} says the same.` }),
      });
    }
  }
  const home = engine.deps.layout.home;
  let homeOk = false;
  try {
    engine.ports.fs.accessSync(home, engine.ports.fs.constants.W_OK);
    homeOk = true;
  } catch {
    homeOk = false;
  }
  // The engine refused an unsafe home when it started; one made unsafe since is named here.
  const unsafe = inspectHome(home, engine.deps.uid).unsafe;
  const refusal = unsafe.length > 0 ? homeUnsafe(home, unsafe) : undefined;
  checks.push({
    check: 'home',
    ok: homeOk && !refusal,
    detail: refusal ? `HOME_UNSAFE: ${refusal.message}` : home,
    ...(refusal ? { hint: refusal.hint } : homeOk ? {} : { hint: 'Set RIGDESK_HOME to a folder you can write.' }),
  });
  try {
    const ver = schemaVersion(engine.store.db);
    const integrity = engine.store.db.pragma('quick_check', { simple: true });
    checks.push({
      check: 'database',
      ok: integrity === 'ok',
      detail: `${engine.deps.layout.dbPath} (schema ${ver}, ${String(integrity)})`,
    });
  } catch (e) {
    checks.push({ check: 'database', ok: false, detail: (e as Error).message });
  }
  checks.push({
    check: 'engine socket',
    ok: true,
    detail: engine.ports.fs.existsSync(engine.deps.layout.socketPath)
      ? `${engine.deps.layout.socketPath} present`
      : 'no engine running (the CLI runs one in-process)',
  });
  // Agent CLIs are optional (a rig may use only some); tmux, the home and the store are not.
  const required = checks.filter((c) => !c.check.endsWith(' CLI'));
  if (required.some((c) => !c.ok)) return fail('INTERNAL', 'doctor found problems', { evidence: { checks } });
  return { ok: true, checks };
}
