import type { SearchAddon } from '@xterm/addon-search';
import { useEffect, useRef, useState } from 'react';

const DECORATIONS = {
  matchOverviewRuler: '#d4a72c',
  activeMatchColorOverviewRuler: '#f0883e',
  matchBackground: '#d4a72c66',
  activeMatchBackground: '#f0883e',
};

/** Find in the focused terminal (xterm's search addon): Enter for the next match, Shift+Enter the previous. */
export function FindBar({ search, onClose }: { search: SearchAddon | undefined; onClose: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useState('');
  const [found, setFound] = useState<string>('');
  useEffect(() => input.current?.focus(), []);
  useEffect(() => {
    if (!search) return;
    const d = search.onDidChangeResults((r) =>
      setFound(r.resultCount === 0 ? 'no match' : `${r.resultIndex + 1} of ${r.resultCount}`),
    );
    return () => d.dispose();
  }, [search]);
  const go = (back: boolean) => {
    if (!search || !text) return;
    const opts = { decorations: DECORATIONS, incremental: false };
    const hit = back ? search.findPrevious(text, opts) : search.findNext(text, opts);
    if (!hit) setFound('no match');
  };
  return (
    <search className="find-bar">
      <input
        ref={input}
        aria-label="Find in terminal"
        placeholder="Find in terminal"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          if (search && e.target.value)
            search.findNext(e.target.value, { decorations: DECORATIONS, incremental: true });
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            go(e.shiftKey);
          } else if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            onClose();
          }
        }}
      />
      <span className="find-count" role="status">
        {found}
      </span>
      <button type="button" onClick={() => go(true)} aria-label="Previous match">
        ↑
      </button>
      <button type="button" onClick={() => go(false)} aria-label="Next match">
        ↓
      </button>
      <button type="button" onClick={onClose} aria-label="Close find">
        ✕
      </button>
    </search>
  );
}
