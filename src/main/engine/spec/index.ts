export type { BudgetSpec, RestorePolicy, EdgeKind, MemberSpec, PodSpec, EdgeSpec, RigSpec, SpecDeps } from './types';
export { RESTORE_POLICIES, EDGE_KINDS, MAX_SPEC_BYTES, MAX_ALIAS_COUNT } from './types';
export { NAME_RE, validateName, parseSeatRef, seatAddress } from './names';
export type { NameKind } from './names';
export { expandVars, expandPath } from './expand';
export { parseRigSpec } from './parse';
export type { ParseOptions } from './parse';
export { loadRigSpec, liveSpecDeps } from './load';
