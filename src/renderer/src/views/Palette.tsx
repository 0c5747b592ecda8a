import { Command } from 'cmdk';
import { useEffect, useRef } from 'react';
import { GRIDS } from '../../../shared/contract';
import {
  askDown,
  askNewRig,
  askUp,
  focusSeat,
  jump,
  layout,
  magnify,
  pinFocused,
  showPanel,
  showView,
  toggleRail,
} from '../state/actions';
import { visibleSlots } from '../state/grid';
import { STATE_LABEL, stateWord } from '../state/seat-state';
import { openDecisionFor, useWindow } from '../state/store';
import { paletteFilter } from './palette-filter';
import { seatActions } from './seat-actions';

interface Item {
  id: string;
  label: string;
  hint?: string;
  keywords: string[];
  run: () => void;
}

function useItems(): { seats: Item[]; actions: Item[]; layouts: Item[] } {
  const s = useWindow();
  const focused = visibleSlots(s.layout)[s.layout.focus];
  const seats = s.topology.rigs.flatMap((rig) =>
    rig.pods.flatMap((pod) =>
      pod.seats.map((x): Item => {
        const row = s.seats[x.seat];
        const word = stateWord(row, !!openDecisionFor(s.decisions, x.seat));
        return {
          id: `seat:${x.seat}`,
          label: x.seat,
          hint: `${x.runtime} · ${STATE_LABEL[word]}`,
          keywords: [x.member, rig.name, pod.id, x.runtime, word, STATE_LABEL[word]],
          run: () => focusSeat(x.seat),
        };
      }),
    ),
  );
  const actions: Item[] = [];
  if (focused)
    for (const a of seatActions(focused, s.seats[focused]))
      actions.push({
        id: `act:${a.id}`,
        label: `${a.label.replace(/…$/, '')} ${focused}`,
        keywords: [a.id],
        run: a.run,
      });
  actions.push(...windowActions(s.topology.rigs.map((r) => r.name)));
  const layouts = GRIDS.map((g, i) => ({
    id: `layout:${g}`,
    label: `Layout ${g}`,
    hint: `Ctrl+Shift+${i + 1}`,
    keywords: ['grid'],
    run: () => layout(g),
  }));
  return { seats, actions, layouts };
}

/** What the palette offers whatever has the focus: the window's own actions and each rig's. */
function windowActions(rigs: string[]): Item[] {
  return [
    { id: 'jump', label: 'Jump to the seat waiting longest', hint: 'Ctrl+J', keywords: ['attention'], run: jump },
    {
      id: 'devices',
      label: 'Devices: paired phones and other machines',
      keywords: ['devices', 'phone', 'pair', 'revoke'],
      run: () => useWindow.setState({ dialog: { kind: 'devices' } }),
    },
    {
      id: 'find',
      label: 'Find in terminal',
      hint: 'Ctrl+Shift+F',
      keywords: ['search'],
      run: () => useWindow.setState({ find: true }),
    },
    {
      id: 'magnify',
      label: 'Magnify or put back the focused pane',
      hint: 'Ctrl+Shift+M',
      keywords: ['zoom'],
      run: magnify,
    },
    { id: 'pin', label: 'Pin or unpin the focused pane', hint: 'Ctrl+Shift+P', keywords: ['pin'], run: pinFocused },
    {
      id: 'decisions',
      label: 'Decisions panel',
      hint: 'Ctrl+Shift+D',
      keywords: ['prompts'],
      run: () => showPanel('decisions'),
    },
    {
      id: 'details',
      label: 'Seat details panel',
      hint: 'Ctrl+Shift+E',
      keywords: ['timeline', 'facts'],
      run: () => showPanel('details'),
    },
    { id: 'rail', label: 'Show or hide the seat rail', hint: 'Ctrl+Shift+B', keywords: ['sidebar'], run: toggleRail },
    ...viewActions(),
    { id: 'up', label: 'Bring up a rig from a spec…', keywords: ['up', 'yaml'], run: askUp },
    { id: 'new-rig', label: 'New rig…', keywords: ['create', 'first'], run: askNewRig },
    ...rigs.map((r) => ({
      id: `down:${r}`,
      label: `Take ${r} down…`,
      keywords: ['down', 'stop'],
      run: () => askDown(r),
    })),
    {
      id: 'keys',
      label: 'Show the keys',
      hint: '?',
      keywords: ['help', 'shortcuts'],
      run: () => useWindow.setState({ help: true }),
    },
  ];
}

/** The centre's views by name (Ctrl+Shift+G goes to the next one). */
function viewActions(): Item[] {
  const hint = 'Ctrl+Shift+G';
  return [
    { id: 'view:grid', label: 'Grid view', hint, keywords: ['terminals', 'panes'], run: () => showView('grid') },
    {
      id: 'view:topology',
      label: 'Topology view',
      hint,
      keywords: ['graph', 'edges', 'pods'],
      run: () => showView('topology'),
    },
    {
      id: 'view:timeline',
      label: 'Timeline view',
      hint,
      keywords: ['events', 'log', 'history'],
      run: () => showView('timeline'),
    },
    {
      id: 'view:restore',
      label: 'Restore review',
      hint,
      keywords: ['reboot', 'resume', 'plan'],
      run: () => showView('restore'),
    },
    {
      id: 'view:usage',
      label: 'Usage view',
      hint: 'U in the rail',
      keywords: ['tokens', 'cost', 'context', 'limits', 'spend'],
      run: () => showView('usage'),
    },
  ];
}

/** Ctrl+K: fuzzy seat search (name, rig, runtime, state) and every action, layouts by name. */
export function Palette() {
  const open = useWindow((s) => s.palette);
  return open ? <OpenPalette /> : null;
}

/** Mounted only while open: it follows the whole window state, which nothing closed should. */
function OpenPalette() {
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const items = useItems();
  const close = (then?: () => void) => {
    useWindow.setState((s) => ({ palette: false, focusTick: s.focusTick + 1 }));
    then?.();
  };
  const group = (heading: string, list: Item[]) =>
    list.length > 0 && (
      <Command.Group heading={heading}>
        {list.map((it) => (
          <Command.Item
            key={it.id}
            value={`${it.label} ${it.id}`}
            keywords={it.keywords}
            onSelect={() => close(it.run)}
          >
            <span className="label">{it.label}</span>
            {it.hint && <span className="hint">{it.hint}</span>}
          </Command.Item>
        ))}
      </Command.Group>
    );
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a click on the backdrop closes it; Escape is the keyboard path
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && close()}>
      <Command
        className="palette"
        label="Command"
        loop
        filter={paletteFilter}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            close();
          }
        }}
      >
        <Command.Input ref={input} aria-label="Command" placeholder="Seat name, rig, runtime, state, or an action…" />
        <Command.List>
          <Command.Empty>Nothing matches.</Command.Empty>
          {group('Seats', items.seats)}
          {group('Actions', items.actions)}
          {group('Layouts', items.layouts)}
        </Command.List>
      </Command>
    </div>
  );
}
