/**
 * Runtimes that write the same conversations. An omo seat is OpenCode with a plugin: its process
 * is an `opencode`, its sessions are rows of the same opencode.db, and a headless `omo run
 * --session-id X` writes the very session an OpenCode seat may hold. Custody, binding and the
 * store's bound rows compare runtimes through this, so a conversation is one thing whichever of
 * the two names it. Kept free of imports: the store and the guard both read it.
 */
const CONVERSATIONS_OF: Readonly<Record<string, string>> = { omo: 'opencode' };

/** The runtime whose conversations `runtime` writes (itself, for every runtime but omo). */
export function conversationRuntime(runtime: string): string {
  return CONVERSATIONS_OF[runtime] ?? runtime;
}

export function sameConversations(a: string, b: string): boolean {
  return conversationRuntime(a) === conversationRuntime(b);
}

/** Every runtime id that writes `runtime`'s conversations, itself included. */
export function conversationFamily(runtime: string): string[] {
  const root = conversationRuntime(runtime);
  return [root, ...Object.keys(CONVERSATIONS_OF).filter((k) => CONVERSATIONS_OF[k] === root)];
}
