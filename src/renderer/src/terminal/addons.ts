import { FitAddon } from '@xterm/addon-fit';
import { SerializeAddon } from '@xterm/addon-serialize';
import { WebglAddon } from '@xterm/addon-webgl';
import type { Terminal } from '@xterm/xterm';

/** WebGL when the GPU (or SwiftShader) gives a context; xterm's DOM renderer otherwise or after a context loss. */
export function loadRenderer(term: Terminal): 'webgl' | 'dom' {
  try {
    const gl = new WebglAddon();
    gl.onContextLoss(() => gl.dispose());
    term.loadAddon(gl);
    return 'webgl';
  } catch {
    return 'dom';
  }
}

export function loadFit(term: Terminal): FitAddon {
  const fit = new FitAddon();
  term.loadAddon(fit);
  return fit;
}

export function loadSerialize(term: Terminal): SerializeAddon {
  const s = new SerializeAddon();
  term.loadAddon(s);
  return s;
}

/** The visible screen as text, for the seat page's tests and for copy. */
export function screenText(term: Terminal): string {
  const b = term.buffer.active;
  const out: string[] = [];
  for (let i = 0; i < term.rows; i++) out.push(b.getLine(b.viewportY + i)?.translateToString(true) ?? '');
  return out.join('\n');
}
