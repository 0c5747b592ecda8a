/**
 * What Rigdesk writes into a Qwen seat's config (Qwen ignores NO_PROXY, so its proxy must be a
 * setting): written only into the seat's own QWEN_HOME, merged with what is there, never into a
 * person's ~/.qwen; refused, with the reason, where the seat's proxy variables would misroute Qwen.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { prepareQwenSeat, QWEN_PROXY_VAR } from '../../../src/main/engine/runtimes/qwen-settings';

describe('qwen seat settings: the proxy Qwen must use', () => {
  let root: string;
  let seatHome: string;
  let userHome: string;
  const PROXIES = {
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    NO_PROXY: '127.0.0.1,localhost',
  };
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'rd-qwset-'));
    seatHome = join(root, 'seat-qwen');
    userHome = join(root, 'person');
    mkdirSync(seatHome);
    mkdirSync(join(userHome, '.qwen'), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));
  const settings = (dir: string) =>
    JSON.parse(readFileSync(join(dir, 'settings.json'), 'utf8')) as Record<string, unknown>;

  it('writes RIGDESK_QWEN_PROXY as "proxy" into the seat\'s own settings.json, keeping every other key', () => {
    writeFileSync(
      join(seatHome, 'settings.json'),
      JSON.stringify({ $version: 4, security: { auth: { selectedType: 'openai' } } }),
    );
    const seatEnv = { QWEN_HOME: seatHome, [QWEN_PROXY_VAR]: 'http://127.0.0.1:4555', ...PROXIES };
    const r = prepareQwenSeat({ seatEnv, effectiveEnv: seatEnv, userHome });
    expect(r).toMatchObject({ ok: true, wrote: join(seatHome, 'settings.json'), proxy: 'http://127.0.0.1:4555' });
    expect(settings(seatHome)).toEqual({
      $version: 4,
      security: { auth: { selectedType: 'openai' } },
      proxy: 'http://127.0.0.1:4555',
    });
    // Again: nothing to change, nothing written.
    expect(prepareQwenSeat({ seatEnv, effectiveEnv: seatEnv, userHome })).toEqual({
      ok: true,
      proxy: 'http://127.0.0.1:4555',
    });
  });

  it("creates the seat's settings.json when Qwen has not yet", () => {
    const seatEnv = { QWEN_HOME: seatHome, [QWEN_PROXY_VAR]: 'http://127.0.0.1:4555' };
    expect(prepareQwenSeat({ seatEnv, effectiveEnv: seatEnv, userHome }).ok).toBe(true);
    expect(settings(seatHome)).toEqual({ proxy: 'http://127.0.0.1:4555' });
  });

  it("never writes a person's own ~/.qwen: RIGDESK_QWEN_PROXY without a seat QWEN_HOME is refused", () => {
    const seatEnv = { [QWEN_PROXY_VAR]: 'http://127.0.0.1:4555' };
    const r = prepareQwenSeat({ seatEnv, effectiveEnv: { ...seatEnv, HOME: userHome }, userHome });
    expect(r).toMatchObject({ ok: false, code: 'RUNTIME_CONFIG_UNSAFE' });
    expect(existsSync(join(userHome, '.qwen', 'settings.json'))).toBe(false);
  });

  it('refuses a seat whose env sets a proxy and NO_PROXY with no proxy setting Qwen would honour, and says which variables', () => {
    const seatEnv = { QWEN_HOME: seatHome, ...PROXIES };
    const r = prepareQwenSeat({ seatEnv, effectiveEnv: seatEnv, userHome });
    expect(r).toMatchObject({
      ok: false,
      code: 'RUNTIME_CONFIG_UNSAFE',
      evidence: { proxyVariable: 'HTTPS_PROXY', noProxyVariable: 'NO_PROXY' },
    });
    expect(r.ok ? '' : r.message).toMatch(/ignores NO_PROXY/);
    expect(existsSync(join(seatHome, 'settings.json'))).toBe(false);
    // Inherited from the engine's environment counts the same as the seat's own.
    const inherited = prepareQwenSeat({ seatEnv: {}, effectiveEnv: { ...PROXIES, HOME: userHome }, userHome });
    expect(inherited).toMatchObject({ ok: false, code: 'RUNTIME_CONFIG_UNSAFE' });
  });

  it("accepts a proxy the person already set in Qwen's settings (their own or the seat's), without writing", () => {
    writeFileSync(join(userHome, '.qwen', 'settings.json'), JSON.stringify({ proxy: 'http://corp:3128' }));
    const before = readFileSync(join(userHome, '.qwen', 'settings.json'), 'utf8');
    expect(prepareQwenSeat({ seatEnv: {}, effectiveEnv: { ...PROXIES, HOME: userHome }, userHome })).toEqual({
      ok: true,
      proxy: 'http://corp:3128',
    });
    expect(readFileSync(join(userHome, '.qwen', 'settings.json'), 'utf8')).toBe(before);
    writeFileSync(join(seatHome, 'settings.json'), JSON.stringify({ proxy: 'http://corp:3128' }));
    expect(
      prepareQwenSeat({ seatEnv: { QWEN_HOME: seatHome, ...PROXIES }, effectiveEnv: PROXIES, userHome }),
    ).toMatchObject({ ok: true, proxy: 'http://corp:3128' });
  });

  it('with no proxy variables there is nothing to decide', () => {
    expect(prepareQwenSeat({ seatEnv: {}, effectiveEnv: { HOME: userHome }, userHome })).toEqual({ ok: true });
    expect(prepareQwenSeat({ seatEnv: {}, effectiveEnv: { HTTPS_PROXY: 'http://corp:3128' }, userHome })).toEqual({
      ok: true,
    });
  });

  it('will not rewrite a settings.json it cannot read as a JSON object', () => {
    writeFileSync(join(seatHome, 'settings.json'), '{ "proxy": // a comment\n }');
    const seatEnv = { QWEN_HOME: seatHome, [QWEN_PROXY_VAR]: 'http://127.0.0.1:4555' };
    expect(prepareQwenSeat({ seatEnv, effectiveEnv: seatEnv, userHome })).toMatchObject({
      ok: false,
      code: 'RUNTIME_CONFIG_UNSAFE',
    });
    expect(readFileSync(join(seatHome, 'settings.json'), 'utf8')).toContain('// a comment');
  });
});

describe("qwen seat settings: doctor's dry run", () => {
  it('reports what launch would write, and writes nothing', () => {
    const root = mkdtempSync(join(tmpdir(), 'rd-qwset-'));
    try {
      const seatEnv = { QWEN_HOME: root, [QWEN_PROXY_VAR]: 'http://127.0.0.1:4555' };
      expect(prepareQwenSeat({ seatEnv, effectiveEnv: seatEnv, dryRun: true })).toEqual({
        ok: true,
        proxy: 'http://127.0.0.1:4555',
      });
      expect(existsSync(join(root, 'settings.json'))).toBe(false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
