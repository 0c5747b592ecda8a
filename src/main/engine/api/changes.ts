import type { CHANGES_ANSWERS, CHANGES_REQUESTS } from '../../../shared/contract/changes';
import { changesDiff, changesList, mergeRun, reviewSend, worktreeRemove } from '../services/changes';
import type { Handlers } from './types';

export const CHANGES_HANDLERS: Handlers<typeof CHANGES_REQUESTS, typeof CHANGES_ANSWERS> = {
  'changes.list': (e, p) => changesList(e, p),
  'changes.diff': (e, p) => changesDiff(e, p),
  'review.send': (e, p) => reviewSend(e, p),
  'merge.run': (e, p) => mergeRun(e, p),
  'worktree.remove': (e, p) => worktreeRemove(e, p),
};
