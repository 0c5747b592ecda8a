import path from 'node:path';
import { LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { fail, type Result } from '../../../shared/errors';
import { buildSpec } from './checks';
import { makeLocator, valueAt } from './locate';
import { describeType, quote } from './names';
import { specFailure, type Problem, type SpecFile } from './problems';
import { allowedKeysAt, rigSchema } from './schema';
import { MAX_ALIAS_COUNT, MAX_SPEC_BYTES, type RigSpec, type SpecDeps } from './types';

export interface ParseOptions {
  knownRuntimes: readonly string[];
  deps: SpecDeps;
  /** Hosts this Rigdesk already knows (`rigdesk hosts add`): a member may name one the spec does not declare. */
  knownHosts?: readonly string[];
}

/**
 * YAML text -> validated RigSpec. Pure apart from `deps` (env, home folder, and the existence checks
 * for cwds, which need the document to name a line). Never throws: every problem is a Failure with
 * code SPEC_INVALID, RUNTIME_UNKNOWN or CWD_MISSING, naming the file, line and field.
 */
export function parseRigSpec(text: string, specPath: string, opts: ParseOptions): Result<{ spec: RigSpec }> {
  try {
    return parseUnguarded(text, specPath, opts);
  } catch (e) {
    // Defence in depth: the steps below are written not to throw, but a spec must never crash a caller.
    const shown = typeof specPath === 'string' && specPath !== '' ? specPath : '<spec>';
    const why = e instanceof Error ? e.message : String(e);
    return fail('SPEC_INVALID', `${shown}: could not read the spec: ${why}`, { evidence: { internalError: why } });
  }
}

function parseUnguarded(text: string, specPath: string, opts: ParseOptions): Result<{ spec: RigSpec }> {
  const shown = typeof specPath === 'string' && specPath !== '' ? specPath : '<spec>';
  const file: SpecFile = { shown, absolute: path.resolve(typeof specPath === 'string' ? specPath : '') };
  if (typeof text !== 'string') {
    return specFailure(file, [
      { code: 'SPEC_INVALID', message: `spec text must be a string, got ${describeType(text)}` },
    ]);
  }
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > MAX_SPEC_BYTES) {
    return specFailure(file, [
      { code: 'SPEC_INVALID', message: `spec is ${bytes} bytes; the limit is ${MAX_SPEC_BYTES} (256 KiB)` },
    ]);
  }

  const lineCounter = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    stringKeys: true,
    uniqueKeys: true,
    version: '1.2',
    schema: 'core',
  });
  if (doc.errors.length > 0) {
    const problems: Problem[] = doc.errors.map((e) => ({
      code: 'SPEC_INVALID',
      message: `YAML: ${e.message.split('\n')[0]}`,
      line: lineCounter.linePos(e.pos[0]).line,
      extra: { yamlCode: e.code },
    }));
    return specFailure(file, problems);
  }
  const lineOf = makeLocator(doc as Document, lineCounter);

  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    const why = /alias/i.test(msg)
      ? `too many alias expansions (limit ${MAX_ALIAS_COUNT}): ${msg}`
      : `cannot convert YAML: ${msg}`;
    return specFailure(file, [{ code: 'SPEC_INVALID', message: why, line: 1 }]);
  }

  const parsed = rigSchema.safeParse(raw);
  if (!parsed.success) return specFailure(file, schemaProblems(parsed.error.issues, raw), lineOf);

  const built = buildSpec(parsed.data, {
    knownRuntimes: opts.knownRuntimes,
    knownHosts: opts.knownHosts ?? [],
    deps: opts.deps,
    specPath: file.absolute,
    specDir: path.dirname(file.absolute),
    raw,
    lineOf,
  });
  if ('problems' in built) return specFailure(file, built.problems, lineOf);
  return { ok: true, spec: built.spec };
}

function schemaProblems(issues: readonly z.core.$ZodIssue[], raw: unknown): Problem[] {
  const out: Problem[] = [];
  for (const issue of issues) {
    const at = issue.path;
    if (issue.code === 'unrecognized_keys') {
      const allowed = allowedKeysAt(at);
      for (const key of issue.keys) {
        out.push({
          code: 'SPEC_INVALID',
          path: [...at, key],
          message: `unknown key ${quote(key)}${allowed ? ` (allowed: ${allowed.join(', ')})` : ''}`,
        });
      }
      continue;
    }
    out.push({ code: 'SPEC_INVALID', path: at, message: issueMessage(issue, raw) });
  }
  return out;
}

function issueMessage(issue: z.core.$ZodIssue, raw: unknown): string {
  const value = valueAt(raw, issue.path);
  const present = issue.path.length === 0 || hasPath(raw, issue.path);
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.path.length === 0) {
        return raw === null || raw === undefined
          ? 'the spec is empty: expected a mapping with name and pods'
          : `the spec must be a mapping with name and pods, got ${describeType(raw)}`;
      }
      if (!present) return 'is required';
      const quoteHint =
        issue.expected === 'string' && (typeof value === 'number' || typeof value === 'boolean')
          ? ` (quote it: "${String(value)}")`
          : '';
      const expected =
        issue.expected === 'array'
          ? 'a list'
          : issue.expected === 'object' || issue.expected === 'record'
            ? 'a mapping'
            : `a ${issue.expected}`;
      return `expected ${expected}, got ${describeType(value)}${quoteHint}`;
    }
    case 'invalid_key': {
      const key = issue.path[issue.path.length - 1];
      return `invalid environment variable name ${quote(String(key))}: use letters, digits and "_", not starting with a digit`;
    }
    case 'invalid_value':
      return `${issue.message}, got ${describeType(value)}`;
    default:
      return issue.message;
  }
}

function hasPath(root: unknown, p: readonly PropertyKey[]): boolean {
  const parent = valueAt(root, p.slice(0, -1));
  const last = p[p.length - 1];
  return parent !== null && typeof parent === 'object' && last !== undefined && Object.hasOwn(parent, last);
}
