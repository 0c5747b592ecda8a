import path from 'node:path';
import { fail, type Result } from '../../../shared/errors';
import { quote } from './names';

/**
 * `$VAR` / `${VAR}` and leading-`~` expansion for spec values, against an injected environment and
 * home folder (never process.env directly). An unset variable is an error, not an empty string: a cwd
 * of `$PROJECT/app` silently becoming `/app` would start an agent in the wrong folder. `$$` is a
 * literal `$`; a `$` not followed by a name or `{` is kept as is.
 */

const VAR_START = /[A-Za-z_]/;
const VAR_CHAR = /[A-Za-z0-9_]/;
export const ENV_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type Env = Record<string, string | undefined>;

function lookup(env: Env, name: string): string | undefined {
  // process.env inherits from Object.prototype: `$toString` must not find a function.
  if (!Object.hasOwn(env, name)) return undefined;
  const v = env[name];
  return typeof v === 'string' ? v : undefined;
}

export function expandVars(text: string, env: Env): Result<{ value: string }> {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch !== '$') {
      out += ch;
      i += 1;
      continue;
    }
    const next = text[i + 1];
    let name: string;
    if (next === '$') {
      out += '$';
      i += 2;
      continue;
    } else if (next === '{') {
      const close = text.indexOf('}', i + 2);
      name = close < 0 ? '' : text.slice(i + 2, close);
      if (close < 0 || !ENV_NAME_RE.test(name)) {
        return fail(
          'SPEC_INVALID',
          `malformed variable reference ${quote(text.slice(i, close < 0 ? i + 20 : close + 1))}: expected \${NAME} (use $$ for a literal $)`,
        );
      }
      i = close + 1;
    } else if (next !== undefined && VAR_START.test(next)) {
      let j = i + 2;
      while (j < text.length && VAR_CHAR.test(text[j]!)) j += 1;
      name = text.slice(i + 1, j);
      i = j;
    } else {
      out += '$';
      i += 1;
      continue;
    }
    const value = lookup(env, name);
    if (value === undefined) {
      return fail('SPEC_INVALID', `environment variable $${name} is not set`, {
        hint: `set ${name} before loading the spec, or write $$ for a literal $`,
        evidence: { variable: name },
      });
    }
    out += value;
  }
  return { ok: true, value: out };
}

export interface PathContext {
  env: Env;
  homeDir: string;
  /** Relative results resolve from here (the spec file's folder). */
  baseDir: string;
}

/** Expands `~` (only `~` or `~/...` at the start) and variables, then resolves and normalises. */
export function expandPath(raw: string, ctx: PathContext): Result<{ path: string }> {
  let prefix = '';
  let rest = raw;
  if (raw === '~' || raw.startsWith('~/')) {
    if (typeof ctx.homeDir !== 'string' || !path.isAbsolute(ctx.homeDir)) {
      return fail('SPEC_INVALID', `cannot expand ${quote(raw)}: the home folder is unknown`);
    }
    prefix = ctx.homeDir;
    rest = raw.slice(1);
  } else if (raw.startsWith('~')) {
    return fail('SPEC_INVALID', `cannot expand ${quote(raw)}: only "~" and "~/..." are expanded, not ~user`);
  }
  const vars = expandVars(rest, ctx.env);
  if (!vars.ok) return vars;
  const expanded = prefix + vars.value;
  if (expanded === '') return fail('SPEC_INVALID', `${quote(raw)} expands to an empty path`);
  if (expanded.includes('\0'))
    return fail('SPEC_INVALID', `${quote(raw)} expands to a path containing a NUL character`);
  return { ok: true, path: path.resolve(ctx.baseDir, expanded) };
}
