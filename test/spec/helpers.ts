import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { liveSpecDeps, type SpecDeps } from '../../src/main/engine/spec';

export const KNOWN = ['claude-code', 'codex', 'pi', 'shell'] as const;

/** A real temp folder per test, removed afterwards; specs and cwds live inside it. */
export class TempRig {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rd-spec-'));
  write(rel: string, text: string): string {
    const p = path.join(this.dir, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
    return p;
  }
  mkdir(rel: string): string {
    const p = path.join(this.dir, rel);
    fs.mkdirSync(p, { recursive: true });
    return p;
  }
  /** Live fs, but an injected env and home folder, so the host's environment never leaks in. */
  deps(env: Record<string, string> = {}, homeDir = this.dir): SpecDeps {
    return { ...liveSpecDeps(), env: { ...env }, homeDir };
  }
  cleanup(): void {
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** 1-based line of the first line containing `needle` (tests state lines by content, not by count). */
export function lineOf(text: string, needle: string | RegExp, from = 1): number {
  const lines = text.split('\n');
  for (let i = from - 1; i < lines.length; i++) {
    if (typeof needle === 'string' ? lines[i]!.includes(needle) : needle.test(lines[i]!)) return i + 1;
  }
  throw new Error(`needle ${String(needle)} not in text`);
}

/** A fake SpecDeps: no disk at all. Paths containing "missing" do not exist; "*.txt" are files. */
export function fakeDeps(over: Partial<SpecDeps> = {}): SpecDeps & { calls: string[] } {
  const calls: string[] = [];
  return {
    env: { WORK: '/srv/wk', EMPTY: '' },
    homeDir: '/home/u',
    exists: (p) => (calls.push(`exists ${p}`), !p.includes('missing')),
    isDirectory: (p) => (calls.push(`isDirectory ${p}`), !p.endsWith('.txt')),
    readFile: (p) => {
      calls.push(`readFile ${p}`);
      throw Object.assign(new Error(`ENOENT: ${p}`), { code: 'ENOENT' });
    },
    ...over,
    calls,
  };
}

/** Two seats in one pod; tests replace lines in it. */
export const BASE = `name: demo
pods:
  - id: core
    members:
      - id: lead
        runtime: claude-code
        cwd: ./wk/lead
      - id: worker1
        runtime: codex
        cwd: ./wk/w1
edges:
  - { from: lead, to: worker1, kind: delegates_to }
`;
