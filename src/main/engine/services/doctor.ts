/** `doctor`: what this machine and the rig's hosts have, and what a seat home would make unsafe. */
import { accessSync, constants, existsSync } from 'node:fs';
import type { DoctorCheck } from '../../../shared/contract';
import { fail, type Result } from '../../../shared/errors';
import type { Engine } from '../engine';
import { homeUnsafe, inspectHome } from '../home-safety';
import { AGENT_RUNTIMES, runtimeById } from '../runtimes';
import { codexConfigPath, codexDaemonAutoStart } from '../runtimes/codex-daemon';
import { scrubIdentity } from '../runtimes/env';
import { INSTALL_HINTS, runtimeOnPath } from '../runtimes/install';
import { CONFIG_MAX_BYTES, readRegularText } from '../read-file';
import { schemaVersion } from '../store/db';
import { checkHost } from './hosts';
import { seatPrepInput } from './launch';

/**
 * Each local Codex seat's home whose background daemon is on: reported, not failed. The daemon
 * outlives the seat's TUI and holds its thread; the hint says what the person can set instead.
 */
function codexDaemonChecks(engine: Engine): DoctorCheck[] {
  const homes = new Map<string, string[]>();
  for (const seat of engine.store.rigs.seats().filter((s) => s.host === 'local' && s.runtime === 'codex')) {
    const home = engine.seatHome(seat);
    if (home) homes.set(home, [...(homes.get(home) ?? []), seat.seat]);
  }
  return [...homes].map(([home, seats]) => {
    let text: string | undefined;
    try {
      text = readRegularText(codexConfigPath(home), CONFIG_MAX_BYTES);
    } catch {
      text = undefined;
    }
    const on = codexDaemonAutoStart(text);
    return {
      check: `codex daemon (${seats.join(', ')})`,
      ok: true,
      detail: on
        ? `on in ${home}: Codex's background daemon runs the turns and outlives the seat's TUI`
        : `off in ${home} (daemon_auto_start = false)`,
      ...(on
        ? {
            hint: `To have each seat's TUI own its thread, add daemon_auto_start = false under [features] in ${codexConfigPath(home)}.`,
          }
        : {}),
    };
  });
}

export async function doctor(engine: Engine): Promise<Result<{ checks: DoctorCheck[] }>> {
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
  const listing = await engine.own.listPanes();
  checks.push({
    check: 'tmux server',
    ok: listing.ok,
    detail: listing.ok
      ? `${engine.ownKey}: ${listing.running ? `running, ${listing.panes.length} pane(s)` : 'not started yet (starts with the first seat)'}`
      : listing.message,
  });
  const env = scrubIdentity(engine.deps.env);
  for (const r of AGENT_RUNTIMES) {
    const { path: p, missing } = runtimeOnPath(r, env.PATH);
    const ok = missing.length === 0;
    checks.push({
      check: `${r.id} CLI`,
      ok,
      detail: ok ? p! : `${missing.join(', ')} not on PATH${p ? ` (${r.binary} is ${p})` : ''}`,
      ...(ok ? {} : { hint: INSTALL_HINTS[r.id] }),
    });
  }
  // A runtime that must make a seat's config safe before launch says here what launch would do.
  for (const seat of engine.store.rigs.seats().filter((s) => s.host === 'local')) {
    const adapter = runtimeById(seat.runtime);
    const r = adapter?.prepareSeat?.(seatPrepInput(engine, seat, { ...env, ...seat.env }), { write: false });
    if (!r) continue;
    const check = adapter!.prepareCheckName?.(seat.seat) ?? `${seat.runtime} config (${seat.seat})`;
    checks.push(
      r.ok
        ? { check, ok: true, detail: r.detail }
        : { check, ok: false, detail: r.message, ...(r.hint ? { hint: r.hint } : {}) },
    );
  }
  checks.push(...codexDaemonChecks(engine));
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
    accessSync(home, constants.W_OK);
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
    detail: existsSync(engine.deps.layout.socketPath)
      ? `${engine.deps.layout.socketPath} present`
      : 'no engine running (the CLI runs one in-process)',
  });
  // Agent CLIs are optional (a rig may use only some); tmux, the home and the store are not.
  const required = checks.filter((c) => !c.check.endsWith(' CLI'));
  if (required.some((c) => !c.ok)) return fail('INTERNAL', 'doctor found problems', { evidence: { checks } });
  return { ok: true, checks };
}
