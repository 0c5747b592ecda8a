import { useState } from 'react';
import { type NotifyState, notifyState, toggleNotifications } from '../state/tell';

const LABEL: Readonly<Record<Exclude<NotifyState, 'unsupported'>, string>> = {
  default: 'Turn on notifications',
  off: 'Turn on notifications',
  on: 'Turn off notifications',
  denied: 'Notifications are blocked',
};

const HINT: Readonly<Record<Exclude<NotifyState, 'unsupported'>, string>> = {
  default: 'Notify me when a seat needs me (the browser asks once)',
  off: 'Notify me when a seat needs me',
  on: 'Notifications are on: a seat that needs you raises one',
  denied: "This browser blocks Rigdesk's notifications: allow them in the site's settings, then reload",
};

/**
 * The browser window's notification switch. The browser's permission is asked only from this
 * click, never on load; after that it turns this window's notifications on and off.
 */
export function Bell() {
  const [state, setState] = useState<NotifyState>(notifyState);
  if (state === 'unsupported') return null;
  return (
    <button
      type="button"
      className={`bell ${state}`}
      data-notify={state}
      aria-label={LABEL[state]}
      aria-pressed={state === 'on'}
      title={HINT[state]}
      disabled={state === 'denied'}
      onClick={() => void toggleNotifications(state).then(setState)}
    >
      <BellIcon crossed={state !== 'on'} />
    </button>
  );
}

/** Drawn, not an emoji: every machine has the same glyph. */
function BellIcon({ crossed }: { crossed: boolean }) {
  return (
    <svg
      width="16"
      height="16"
      viewBox="0 0 16 16"
      aria-hidden="true"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.5"
    >
      <path d="M4 11V7a4 4 0 0 1 8 0v4l1.5 1.5h-11z" strokeLinejoin="round" />
      <path d="M6.5 14a1.5 1.5 0 0 0 3 0" />
      {crossed && <path d="M2 2l12 12" />}
    </svg>
  );
}
