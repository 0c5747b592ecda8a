import {
  BaseEdge,
  type EdgeProps,
  EdgeLabelRenderer,
  getBezierPath,
  Handle,
  type NodeProps,
  Position,
  useUpdateNodeInternals,
} from '@xyflow/react';
import { type KeyboardEvent, memo, useEffect, useRef, useState } from 'react';
import { focusSeat, openInGrid } from '../state/actions';
import { visibleSlots } from '../state/grid';
import { STATE_LABEL, type StateWord, stateWord, waitReason } from '../state/seat-state';
import { openDecisionFor, useWindow } from '../state/store';
import { CONTEXT_HIGH_PCT } from '../../../shared/contract';
import { useTopology } from './topology-context';
import { type FlowEdge, type FrameNode, routePath, type SeatData, type SeatFlowNode } from './topology-layout';

/** The mark inside a seat's ring: the state at a glance, beside its word (colour is never the only signal). */
const MARK: Readonly<Record<StateWord, string>> = {
  needs_input: '!',
  exited: '✕',
  starting: '…',
  working: '',
  idle: '',
  unknown: '?',
  stopped: '■',
};

const SIDES = [
  ['t', Position.Top],
  ['b', Position.Bottom],
  ['l', Position.Left],
  ['r', Position.Right],
] as const;

/** The handles an overlap's edge attaches to (overlap-edges.ts: out of the right or the bottom). */
const OVERLAP_HANDLES = ['s-b', 's-r', 't-b', 't-r'];
const ALL_HANDLES = (['s', 't'] as const).flatMap((io) => SIDES.map(([side]) => `${io}-${side}`));

/**
 * Where edges attach: a source and a target handle on each side (the layout picks the side facing
 * the other seat; two edges between the same seats run apart along their route, not by handle).
 * Only the handles the seat's edges use are drawn (`ids`, joined by spaces), each being a React
 * Flow store subscriber that runs on every pan and zoom step: all eight on 200 seats were 1 600.
 * Memoised on that string: a node drawn again for its state does not draw its handles again.
 */
const Handles = memo(function Handles({ seat, ids }: { seat: string; ids: string }) {
  const pos = new Map(SIDES);
  // React Flow measures a node's handles when its size changes; handles added later (an overlap
  // begins) are measured when told, or the edge to them is not drawn.
  const remeasure = useUpdateNodeInternals();
  const drawn = useRef(ids);
  useEffect(() => {
    if (drawn.current === ids) return;
    drawn.current = ids;
    remeasure(seat);
  }, [ids, seat, remeasure]);
  return (
    <>
      {ids.split(' ').flatMap((id) => {
        if (!id) return [];
        const [io, side] = id.split('-') as ['s' | 't', (typeof SIDES)[number][0]];
        return (
          <Handle
            key={id}
            id={id}
            type={io === 's' ? 'source' : 'target'}
            position={pos.get(side)!}
            isConnectable={false}
          />
        );
      })}
    </>
  );
});

/** The handle ids a seat draws: its layout's, and an overlap's while it overlaps another seat. */
function handleIds(data: SeatData, overlapping: boolean): string {
  if (!data.handles) return ALL_HANDLES.join(' ');
  return [...new Set([...data.handles, ...(overlapping ? OVERLAP_HANDLES : [])])].sort().join(' ');
}

const ARROWS = ['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight'] as const;
const isArrow = (key: string): key is (typeof ARROWS)[number] => (ARROWS as readonly string[]).includes(key);

/**
 * A seat: its state as a ring (turning while it works) with a mark, and as the rail's word; its
 * runtime, why it waits, its context fill when the runtime records it. Click focuses it in the
 * grid, Enter or a double click opens it there, the menu has the rail's actions.
 */
export const SeatNodeView = memo(function SeatNodeView({ data }: NodeProps<SeatFlowNode>) {
  const { seat, member, runtime } = data;
  const row = useWindow((s) => s.seats[seat]);
  const decision = useWindow((s) => openDecisionFor(s.decisions, seat));
  const prompt = useWindow((s) => s.prompts.find((p) => p.seat === seat));
  const focused = useWindow((s) => visibleSlots(s.layout)[s.layout.focus] === seat);
  const t = useTopology();
  const word = stateWord(row, !!decision);
  const reason = waitReason(row, prompt, decision?.reason);
  const ctx = row?.contextPct;
  const onKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.target !== e.currentTarget) return;
    if (isArrow(e.key)) {
      e.preventDefault();
      t.move(seat, e.key);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      openInGrid(seat);
    } else if (e.key === 'm' || e.key === 'ContextMenu' || (e.key === 'F10' && e.shiftKey)) {
      e.preventDefault();
      t.menu(seat, e.currentTarget);
    }
  };
  return (
    // biome-ignore lint/a11y/useSemanticElements: the node holds its own menu button, and a button cannot hold another
    <div
      role="button"
      tabIndex={0}
      className={`seat-node s-${word}${t.far ? ' far' : ''}${focused ? ' focused' : ''}${ctx !== undefined && ctx > CONTEXT_HIGH_PCT ? ' ctx-high' : ''}`}
      data-node={seat}
      data-state={word}
      aria-label={`${seat}, ${STATE_LABEL[word]}${reason ? `, ${reason}` : ''}`}
      onClick={() => focusSeat(seat, { fill: true })}
      onDoubleClick={() => openInGrid(seat)}
      onKeyDown={onKey}
      onContextMenu={(e) => (e.preventDefault(), t.menu(seat, e.currentTarget))}
      onMouseEnter={(e) => t.hover(seat, e.currentTarget)}
      onMouseLeave={() => t.hover(undefined)}
    >
      <Handles seat={seat} ids={handleIds(data, (row?.changes?.overlapsWith?.length ?? 0) > 0)} />
      {t.far ? (
        // Too far out to read words: a tile of the state's colour with its mark; the same keys and menu.
        <span className="mark" aria-hidden="true">
          {MARK[word]}
        </span>
      ) : (
        <SeatNear seat={seat} word={word} member={member} runtime={runtime} reason={reason} ctx={ctx} onMenu={t.menu} />
      )}
    </div>
  );
});

/** A seat's inside when its words can be read: the ring, its name and state, why it waits, the menu button. */
function SeatNear(p: {
  seat: string;
  word: StateWord;
  member: string;
  runtime: string;
  reason: string | undefined;
  ctx: number | undefined;
  onMenu: (seat: string, el: HTMLElement) => void;
}) {
  const { seat, word, member, runtime, reason, ctx } = p;
  return (
    <>
      <span className="ring" aria-hidden="true">
        <span className="mark">{MARK[word]}</span>
      </span>
      <span className="body">
        <span className="node-line1">
          <span className="member">{member}</span>
          <span className="state">{STATE_LABEL[word]}</span>
        </span>
        <span className="node-line2" title={runtime}>
          {/* Why it waits says more than its runtime, which the title and the rail still show. */}
          {!reason && <span className="runtime">{runtime}</span>}
          {ctx !== undefined && (
            <span className="ctx" title="context filled" data-testid="context-pct">
              ctx {Math.round(ctx)}%{ctx > CONTEXT_HIGH_PCT ? ' nearly full' : ''}
            </span>
          )}
          {reason && <span className="reason">{reason}</span>}
        </span>
      </span>
      <button
        type="button"
        className="node-menu icon nodrag nopan"
        aria-label={`Actions for ${seat}`}
        tabIndex={-1}
        onClick={(e) => (e.stopPropagation(), p.onMenu(seat, e.currentTarget.parentElement!))}
      >
        ⋯
      </button>
    </>
  );
}

/** A rig, a host or a pod: a labelled frame around what it holds. */
export const FrameNodeView = memo(function FrameNodeView({ data }: NodeProps<FrameNode>) {
  return (
    <div className={`frame f-${data.kind}`} data-frame={data.kind} data-frame-label={data.label}>
      <span className="frame-label">
        <span className="frame-kind">{data.kind === 'rig' ? 'rig' : data.kind === 'host' ? 'host' : 'pod'}</span>{' '}
        {data.label}
      </span>
    </div>
  );
});

const KIND_WORDS: Readonly<Record<string, string>> = {
  delegates_to: 'delegates to',
  escalates_to: 'escalates to',
  collaborates_with: 'collaborates with',
};

const memberOf = (seat: string) => seat.slice(0, seat.lastIndexOf('@'));

/**
 * An edge of the rig: its kind drawn (delegates_to an arrow, escalates_to dashed, collaborates_with
 * two-headed) and said on hover; the open handoffs between its seats on it while they are open.
 */
export const RigEdgeView = memo(function RigEdgeView(p: EdgeProps<FlowEdge>) {
  const [hover, setHover] = useState(false);
  const t = useTopology();
  // Through dagre's route (around the other seats) when the layout has one; else a plain curve.
  const route = p.data?.route;
  const [path, lx, ly] = route
    ? (({ path, label }) => [path, label.x, label.y] as const)(routePath(route))
    : getBezierPath(p);
  const kind = p.data?.kind ?? 'edge';
  const from = p.data?.from ?? p.source;
  const to = p.data?.to ?? p.target;
  const open = t.handoffs(from, to);
  const words = KIND_WORDS[kind] ?? kind.replace(/_/g, ' ');
  // An overlap names its paths always: it is a warning, not a shape of the rig.
  const note = p.data?.note;
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: hovering only shows the edge's words, which its <title> also says
    <g
      className={`rig-edge k-${kind}${hover ? ' hover' : ''}`}
      data-edge={`${from}->${to}`}
      data-kind={kind}
      onMouseEnter={() => setHover(true)}
      onMouseLeave={() => setHover(false)}
    >
      <title>{`${memberOf(from)} ${words} ${memberOf(to)}${note ? ` on ${note}` : ''}`}</title>
      <BaseEdge id={p.id} path={path} markerEnd={p.markerEnd} markerStart={p.markerStart} interactionWidth={18} />
      {(hover || open.length > 0 || note) && (
        <EdgeLabelRenderer>
          <div
            className={`edge-label k-${kind}`}
            data-edge-label={`${from}->${to}`}
            style={{ transform: `translate(-50%, -50%) translate(${lx}px, ${ly}px)` }}
          >
            {hover && (
              <span className="words">
                {memberOf(from)} {words} {memberOf(to)}
              </span>
            )}
            {note && !hover && (
              <span className="note" data-edge-note={note}>
                ⚠ {note}
              </span>
            )}
            {open.length > 0 && (
              <span
                className="handoffs"
                data-handoffs={open.length}
                title={open.map((h) => `#${h.id} ${memberOf(h.from)} → ${memberOf(h.to)}: ${h.title}`).join('\n')}
              >
                ⇢ {open.length} open handoff{open.length === 1 ? '' : 's'}
              </span>
            )}
          </div>
        </EdgeLabelRenderer>
      )}
    </g>
  );
});
