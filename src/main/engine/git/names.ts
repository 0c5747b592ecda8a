/**
 * Branch names Rigdesk makes or is given. A seat's branch is `rigdesk/<rig>/<member>`; a base
 * named in a spec is checked here before git sees it, and always passed as a full ref
 * (`refs/heads/<name>`), so no name can be read as an option.
 */

export const SEAT_BRANCH_PREFIX = 'rigdesk';

export function seatBranch(rig: string, member: string): string {
  return `${SEAT_BRANCH_PREFIX}/${rig}/${member}`;
}

export function headsRef(branch: string): string {
  return `refs/heads/${branch}`;
}

/** The short name of a `refs/heads/…` ref; undefined for anything else. */
export function branchOfRef(ref: string | undefined): string | undefined {
  return ref?.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : undefined;
}

/**
 * Why `name` cannot be a branch (git's check-ref-format rules, plus no leading dash), or
 * undefined when it can.
 */
export function branchNameProblem(name: string): string | undefined {
  if (name.length === 0 || name.length > 250) return 'must be 1 to 250 characters';
  if (name.startsWith('-')) return 'must not start with "-"';
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return 'must not hold spaces, control characters or any of ~ ^ : ? * [ \\';
  if (name.includes('..') || name.includes('@{') || name === '@') return 'must not hold ".." or "@{"';
  if (name.endsWith('/') || name.endsWith('.') || name.startsWith('/'))
    return 'must not start or end with "/" or end with "."';
  for (const part of name.split('/')) {
    if (part === '') return 'must not hold "//"';
    if (part.startsWith('.')) return 'no part may start with "."';
    if (part.endsWith('.lock')) return 'no part may end with ".lock"';
  }
  return undefined;
}
