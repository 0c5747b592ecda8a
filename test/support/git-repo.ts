import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * A real git repository in a temp folder for one test: its own identity, no global or system
 * config (so a developer's aliases, hooks or signing never change what a test sees), removed in
 * teardown. Paths are real paths, as git prints them.
 */
export class TestRepo {
  readonly root: string;
  readonly dir: string;
  constructor(prefix = 'rdgit-', branch = 'main') {
    this.root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
    this.dir = join(this.root, 'repo');
    mkdirSync(this.dir);
    this.git(['init', '-q', '-b', branch]);
  }

  static env(): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const k of Object.keys(env)) if (k.startsWith('GIT_')) delete env[k];
    return {
      ...env,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'Test',
      GIT_AUTHOR_EMAIL: 'test@example.invalid',
      GIT_COMMITTER_NAME: 'Test',
      GIT_COMMITTER_EMAIL: 'test@example.invalid',
    };
  }

  git(args: string[], cwd = this.dir, input?: string): string {
    return execFileSync('git', args, {
      cwd,
      env: TestRepo.env(),
      encoding: 'utf8',
      input,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  }

  write(rel: string, text: string | Buffer, base = this.dir): string {
    const p = join(base, rel);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, text);
    return p;
  }

  commitAll(message: string, cwd = this.dir): string {
    this.git(['add', '-A'], cwd);
    this.git(['commit', '-q', '--allow-empty', '-m', message], cwd);
    return this.git(['rev-parse', 'HEAD'], cwd).trim();
  }

  /** The path a worktree would get here, under this test's folder. */
  path(...parts: string[]): string {
    return join(this.root, ...parts);
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}
