import { type ReactNode, useState } from 'react';
import { call } from '../state/actions';

/**
 * A reply to a seat through safe send (the engine refuses at a prompt, over a draft or while the
 * seat works; no force here): the finished-turn cards and the phone's seat screen share it.
 */
export function ReplyBox(props: {
  seat: string;
  className: string;
  placeholder: string;
  /** Enter sends (Shift+Enter a new line); off on a phone, whose Enter is a new line. */
  enterSends?: boolean;
  onSent?: () => void;
  /** More buttons beside Send. */
  children?: ReactNode;
}) {
  const { seat } = props;
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const send = async () => {
    if (!text.trim() || busy) return;
    setBusy(true);
    const r = await call('send', { seat, text: text.trim() }, `the reply to ${seat}`);
    setBusy(false);
    if (r?.ok) {
      setText('');
      props.onSent?.();
    }
  };
  return (
    <form
      className={props.className}
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <textarea
        aria-label={`reply to ${seat}`}
        rows={2}
        value={text}
        placeholder={props.placeholder}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (props.enterSends && e.key === 'Enter' && !e.shiftKey) {
            e.preventDefault();
            void send();
          }
        }}
      />
      <div className="buttons">
        <button type="submit" className="primary" disabled={busy || !text.trim()}>
          Send
        </button>
        {props.children}
      </div>
    </form>
  );
}
