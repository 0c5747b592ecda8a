import { createRoot } from 'react-dom/client';
import { wireCheck } from '../../shared/contract/wire';
import { App } from './App';
// In cascade order: the theme first, then each part of the workspace.
import './styles/theme.css';
import './styles/strip.css';
import './styles/rail.css';
import './styles/grid.css';
import './styles/panel.css';
import './styles/views.css';
import './styles/topology.css';
import './styles/topology-far.css';
import './styles/review.css';
import './styles/overlays.css';
import './styles/changes.css';
import './styles/phone.css';
import './styles/usage.css';
import { pickTransport } from './transport';

// `?strict=1` (the browser tests): every answer and push this page receives is parsed against its schema.
if (new URLSearchParams(location.search).get('strict') === '1') wireCheck.strict = true;

// The transport is chosen once: the preload's bridge in the desktop app, else the WebSocket.
const transport = pickTransport(window);
createRoot(document.getElementById('root')!).render(<App transport={transport} />);

// Served to a browser, the window is an installable app: its service worker keeps the shell only
// (public/sw.js). Only where the browser allows one (HTTPS, or this machine's own address).
if (transport.kind === 'ws' && 'serviceWorker' in navigator && window.isSecureContext)
  void navigator.serviceWorker.register('/sw.js').catch(() => undefined);
