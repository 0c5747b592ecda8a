/**
 * An init script that records what a page asks of the Notifications API: every permission
 * request and every notification made (title, body, and the object, so a test can click it: a
 * real desktop notification cannot be clicked from here). The real API stays underneath.
 */
export const RECORD_NOTIFICATIONS = `(() => {
  const Real = window.Notification;
  window.__asked = 0;
  window.__notes = [];
  function Recorder(title, opts) {
    let n;
    try { n = new Real(title, opts); } catch { n = { close() {} }; }
    window.__notes.push({ title, body: (opts && opts.body) || '', n });
    return n;
  }
  Object.defineProperty(Recorder, 'permission', { get: () => Real.permission });
  Recorder.requestPermission = (...a) => { window.__asked++; return Real.requestPermission(...a); };
  window.Notification = Recorder;
})();`;

declare global {
  interface Window {
    __asked: number;
    __notes: { title: string; body: string; n: { onclick: (() => void) | null } }[];
  }
}
