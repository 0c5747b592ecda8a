import { describe, expect, it } from 'vitest';
import { expandPath, expandVars } from '../../src/main/engine/spec';

const env = { WORK: '/srv/wk', NAME: 'app', EMPTY: '' };
const ctx = { env, homeDir: '/home/u', baseDir: '/specs' };

describe('expandVars', () => {
  it('expands $VAR and ${VAR}', () => {
    expect(expandVars('$WORK/${NAME}x', env)).toEqual({ ok: true, value: '/srv/wk/appx' });
  });
  it('treats an unset variable as an error naming it, not as an empty string', () => {
    const r = expandVars('$WORK/$NOPE/x', env);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.code).toBe('SPEC_INVALID');
    expect(r.message).toContain('NOPE');
    expect(r.evidence).toMatchObject({ variable: 'NOPE' });
  });
  it('expands a variable set to the empty string', () => {
    expect(expandVars('a${EMPTY}b', env)).toEqual({ ok: true, value: 'ab' });
  });
  it('keeps $$ as a literal $ and a lone $ as is', () => {
    expect(expandVars('cost $$5, $ 1, $-x, end$', env)).toEqual({ ok: true, value: 'cost $5, $ 1, $-x, end$' });
  });
  it('rejects a malformed ${...}', () => {
    for (const t of ['${WORK', '${}', '${1A}', '${A B}']) expect(expandVars(t, env).ok, t).toBe(false);
  });
  it('never reads inherited properties of the env object ($toString, $constructor)', () => {
    expect(expandVars('$toString', {}).ok).toBe(false);
    expect(expandVars('${constructor}', process.env).ok).toBe(false);
  });
});

describe('expandPath', () => {
  it('expands ~ and ~/ at the start to the injected home folder', () => {
    expect(expandPath('~', ctx)).toEqual({ ok: true, path: '/home/u' });
    expect(expandPath('~/code/$NAME', ctx)).toEqual({ ok: true, path: '/home/u/code/app' });
  });
  it('refuses ~user instead of guessing', () => {
    const r = expandPath('~bob/x', ctx);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.code).toBe('SPEC_INVALID');
  });
  it('keeps a ~ that is not at the start literal', () => {
    expect(expandPath('a/~/b', ctx)).toEqual({ ok: true, path: '/specs/a/~/b' });
  });
  it('does not tilde-expand a variable value that starts with ~', () => {
    expect(expandPath('$T/x', { ...ctx, env: { T: '~' } })).toEqual({ ok: true, path: '/specs/~/x' });
  });
  it('resolves relative paths from the base folder and normalises', () => {
    expect(expandPath('./a/../b/', ctx)).toEqual({ ok: true, path: '/specs/b' });
    expect(expandPath('.', ctx)).toEqual({ ok: true, path: '/specs' });
    expect(expandPath('/x//y/.', ctx)).toEqual({ ok: true, path: '/x/y' });
  });
  it('refuses an empty expansion and an unknown home folder', () => {
    expect(expandPath('$EMPTY', ctx).ok).toBe(false);
    expect(expandPath('~/x', { ...ctx, homeDir: '' }).ok).toBe(false);
  });
});
