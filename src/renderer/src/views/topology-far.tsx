import { ViewportPortal } from '@xyflow/react';
import { memo } from 'react';
import { useWindow } from '../state/store';
import type { FarTag } from './topology-layout';
import { callingSummary } from './topology-summary';

/**
 * The labels of a topology zoomed far out (Topology.tsx FAR_ZOOM), where a frame's own label
 * would be a few pixels high and hidden under its seats: one layer above the seats, each label
 * scaled by 1/zoom (--far-scale, set once the view settles) to read at about 11 px. A rig's sits
 * above its frame; a pod's at its top-left corner, naming how many of its seats want the person.
 */
export const FarTags = memo(function FarTags({ tags }: { tags: readonly FarTag[] }) {
  return (
    <ViewportPortal>
      {tags.map((t) => (
        <FarTagView key={t.id} tag={t} />
      ))}
    </ViewportPortal>
  );
});

function FarTagView({ tag }: { tag: FarTag }) {
  const calling = useWindow((s) => (tag.seats.length ? callingSummary(tag.seats, s.seats, s.decisions) : ''));
  const lift = tag.kind === 'rig' ? ' translateY(-100%)' : '';
  return (
    <div
      className={`far-tag k-${tag.kind}`}
      data-far-tag={tag.label}
      style={{ transform: `translate(${tag.at.x}px, ${tag.at.y}px) scale(var(--far-scale, 1))${lift}` }}
    >
      {tag.kind === 'rig' && <span className="frame-kind">rig </span>}
      <span className="far-name">{tag.label}</span>
      {calling && (
        <span className="far-calling" data-far-calling={calling}>
          {' · '}
          {calling}
        </span>
      )}
    </div>
  );
}
