import type { ITheme } from '@xterm/xterm';

/** The terminals follow the window's theme (the OS setting): read from the page's CSS variables. */
export function terminalTheme(): ITheme {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return {
    background: v('--term-bg', '#0d1117'),
    foreground: v('--term-fg', '#e6edf3'),
    cursor: v('--term-cursor', '#e6edf3'),
    selectionBackground: v('--term-selection', '#3b5070'),
  };
}

/** Calls back when the OS switches between light and dark. */
export function onThemeChange(fn: () => void): () => void {
  const mq = window.matchMedia('(prefers-color-scheme: dark)');
  mq.addEventListener('change', fn);
  return () => mq.removeEventListener('change', fn);
}

/**
 * Agents draw for dark terminals (pale cyan selections, light grey hints); on the light theme xterm
 * raises each colour's contrast against the background to 4.5:1, so what they draw stays readable.
 */
export function contrastFor(): number {
  return window.matchMedia('(prefers-color-scheme: dark)').matches ? 1 : 4.5;
}
