// Types of scripts/desktop.mjs, for the TypeScript that imports it (the e2e).
export const ROOT: string;
export function electronVersion(root?: string): string;
export function electronAbi(root?: string): string;
export function electronSqliteFile(root?: string, abi?: string): string;
export function packagedElectron(root?: string): string | undefined;
export function isPackagedApp(bin: string): boolean;
export function readStatus(root?: string): {
  electron?: { ok: boolean; why?: string };
  sqlite?: { ok: boolean; why?: string };
  version?: string;
  abi?: string;
};
export function electronBinary(env?: NodeJS.ProcessEnv, root?: string): { path?: string; why?: string };
export function reasonIn(text: string): string;
export function buildElectronSqlite(root?: string, target?: string): Promise<{ ok: boolean; why?: string }>;
export function setupDesktop(root?: string): Promise<void>;
