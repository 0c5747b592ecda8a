import { z } from 'zod';
import { psChanges, psWorktree } from './change-totals';
import { hostHealthRow } from './hosts';
import { costSource, figureSource, planLimit, seatBudget } from './usage';

/** What `ps` answers: the seats as rows, the agents that are not seats, and what could not be read. */

/**
 * `starting`: launched less than its runtime's start time ago (RuntimeAdapter.startMs) and no
 * evidence has yet said it is ready (idle, or waiting for a person): a send is not typed into it.
 */
export const ACTIVITIES = ['starting', 'working', 'idle', 'needs_input', 'exited', 'unknown'] as const;
export const activity = z.enum(ACTIVITIES);
export type Activity = z.output<typeof activity>;

/**
 * Who writes a seat's conversation now, judged by the single-writer guard on the roster `ps` read
 * (docs/architecture.md, Custody): this seat's own agent, another live process (named as far as the
 * evidence goes), nobody live, or unknown when the evidence cannot tell (the guard refuses then).
 */
export const seatCustody = z.discriminatedUnion('writer', [
  z.strictObject({ writer: z.literal('this_seat') }),
  z.strictObject({
    writer: z.literal('elsewhere'),
    pid: z.number().int().optional(),
    paneId: z.string().optional(),
    server: z.string().optional(),
    host: z.string().optional(),
    service: z.literal('daemon').optional(),
  }),
  z.strictObject({ writer: z.literal('unknown'), why: z.string().optional() }),
  z.strictObject({ writer: z.literal('none') }),
]);
export type SeatCustody = z.output<typeof seatCustody>;

/** Past this share of its context window (percent) a seat is marked, in `ps`, the rail and the graph. */
export const CONTEXT_HIGH_PCT = 85;

/** One seat as `ps` reports it (and the window's `seats` push carries it). */
export const psRow = z.strictObject({
  seat: z.string(),
  rig: z.string(),
  pod: z.string(),
  member: z.string(),
  runtime: z.string(),
  /**
   * Whether its runtime keeps conversations (an agent CLI), which can be forked and resumed; false
   * for a plain program (shell). Absent for a runtime this Rigdesk does not know.
   */
  conversations: z.boolean().optional(),
  cwd: z.string(),
  /** running: its session is there; stopped: none; gone: recorded but vanished; unknown: cannot tell. */
  state: z.enum(['running', 'stopped', 'gone', 'unknown']),
  activity,
  needsInput: z.string().optional(),
  /** The session axis: present, detached (its server cannot be read), exited (agent gone), absent. */
  session: z.enum(['present', 'detached', 'exited', 'absent']).optional(),
  /** A person has unsent text in the agent's input box. */
  draft: z.boolean().optional(),
  /** Why the activity is unknown, when the evidence said (e.g. a spinner that may hide a 429). */
  activityWhy: z.string().optional(),
  conversationId: z.string().optional(),
  /** Who writes `conversationId` now; absent when the seat has no conversation known. */
  custody: seatCustody.optional(),
  /** When the seat's state or activity last changed (ms epoch), from the event log. */
  stateSince: z.number().optional(),
  /** When its last turn ended (it worked or waited, then went idle; ms epoch), while it is idle. */
  turnEndedAt: z.number().optional(),
  stoppedOnPurpose: z.boolean(),
  /** The host the seat runs on: `local` or a name from the spec's hosts. */
  host: z.string().optional(),
  /** Why the state is what it is, when not plain: `host_unreachable` (its host does not answer). */
  reason: z.literal('host_unreachable').optional(),
  server: z.string().optional(),
  sessionName: z.string().optional(),
  sessionId: z.string().optional(),
  paneId: z.string().optional(),
  pid: z.number().int().optional(),
  attach: z.array(z.string()).optional(),
  /**
   * From the runtime's own records of the seat's conversation (README, "Tokens and context"); each
   * absent where the runtime does not record it. `contextPct`: the share of the model's context
   * window its last model call held (input, cached included, plus output), in percent.
   */
  contextPct: z.number().nonnegative().optional(),
  /** Input tokens of all its model calls, cached ones included. */
  tokensIn: z.number().int().nonnegative().optional(),
  /** Output tokens of all its model calls, reasoning included. */
  tokensOut: z.number().int().nonnegative().optional(),
  /** What its last model call held (input, cached included, plus output), and the model's window. */
  contextTokens: z.number().int().nonnegative().optional(),
  contextWindow: z.number().int().positive().optional(),
  /** Where the window came from: the runtime's records (or its own config), the catalog, the settings. */
  contextSource: figureSource.optional(),
  /** Why the window is not known, when the tokens are. */
  contextWhy: z.string().optional(),
  /** An estimate: its tokens by kind times its model's prices, from `costSource`; absent when a price is unknown. */
  costUsd: z.number().nonnegative().optional(),
  costSource: costSource.optional(),
  /** The prices used, per model: the catalog and its version (with the model it matched), or the settings. */
  costBasis: z.string().optional(),
  costWhy: z.string().optional(),
  /** The plan's limits its runtime recorded for its account (CLI home), with their reset times. */
  limits: z.array(planLimit).optional(),
  /** Its pod's (or rig's) daily budget, where the spec declares one: `budget.state === 'over'` parks its queue. */
  budget: seatBudget.optional(),
  /** Its own git worktree, when the spec gives it one. */
  worktree: psWorktree.optional(),
  /** What it changed (committed and not), as last read; absent until read or outside a repository. */
  changes: psChanges.optional(),
});
export type PsRow = z.output<typeof psRow>;

/** An agent process that is not a seat of Rigdesk's: on another tmux server, or headless. */
export const psAgent = z.strictObject({
  runtime: z.string(),
  pid: z.number().int(),
  conversationId: z.string().optional(),
  source: z.string().optional(),
  cwd: z.string().optional(),
  server: z.string().optional(),
  paneId: z.string().optional(),
  sessionName: z.string().optional(),
  headless: z.boolean(),
  /** The host it runs on; absent for this machine. */
  host: z.string().optional(),
  /** A runtime's background service on its own (Codex's daemon): it serves `home`, in no pane. */
  service: z.enum(['daemon', 'daemon_helper']).optional(),
  home: z.string().optional(),
});
export type PsAgent = z.output<typeof psAgent>;

/**
 * The tmux server on Rigdesk's socket accepts and never answers, or refuses every client: every
 * seat on it is out of reach until that process ends. `pids`: the processes proven to listen on
 * the socket (one, in every case seen); `hint`: the next step.
 */
export const tmuxStuck = z.strictObject({
  code: z.literal('TMUX_SERVER_STUCK'),
  socket: z.string(),
  pids: z.array(z.number().int()),
  why: z.string(),
  hint: z.string(),
});
export type TmuxStuck = z.output<typeof tmuxStuck>;

export const psAnswer = z.strictObject({
  seats: z.array(psRow),
  /** The agents that are not seats (empty unless asked with `all`). */
  others: z.array(psAgent),
  /** One line per piece of evidence the roster could not read. */
  problems: z.array(z.string()),
  /** Every host the roster tried to read (empty when the rigs run here only). */
  hosts: z.array(hostHealthRow),
  /** Present when Rigdesk's own tmux server is stuck (then no seat on it could be read). */
  stuck: tmuxStuck.optional(),
});
export type PsAnswer = z.output<typeof psAnswer>;
