import { FitAddon } from '@xterm/addon-fit';
import { SerializeAddon } from '@xterm/addon-serialize';
import { WebglAddon } from '@xterm/addon-webgl';
import type { Terminal } from '@xterm/xterm';

export type RendererKind = 'webgl' | 'dom';

/** GL drivers that draw on the CPU: WebGL through them costs more CPU than xterm's DOM renderer. */
const SOFTWARE_GL = /SwiftShader|llvmpipe|softpipe|Software Rasterizer|Microsoft Basic Render/i;

let probed: { gl: boolean; software?: string } | undefined;

/** Once per window: is there a WebGL2 context, and is it drawn in software? */
export function probeGl(): { gl: boolean; software?: string } {
  if (probed) return probed;
  try {
    const gl = document.createElement('canvas').getContext('webgl2');
    if (!gl) return (probed = { gl: false });
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const name = String(info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER));
    gl.getExtension('WEBGL_lose_context')?.loseContext();
    probed = SOFTWARE_GL.test(name) ? { gl: true, software: name } : { gl: true };
  } catch {
    probed = { gl: false };
  }
  return probed;
}

/**
 * WebGL on a real GPU; xterm's DOM renderer when there is no WebGL2, after a context loss, or when
 * the GL is a software rasterizer (measured: during a flood, Chromium spent about twice the CPU
 * with WebGL on SwiftShader as with the DOM renderer; bench/terminal.bench.ts). `prefer` overrides
 * the software check (the bench measures both).
 */
export function loadRenderer(term: Terminal, prefer?: RendererKind): RendererKind {
  const gl = probeGl();
  if (prefer === 'dom' || !gl.gl || (gl.software && prefer !== 'webgl')) return 'dom';
  try {
    const addon = new WebglAddon();
    addon.onContextLoss(() => addon.dispose());
    term.loadAddon(addon);
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
