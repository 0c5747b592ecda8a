import { createRoot } from 'react-dom/client';
import { App } from './App';
import './styles.css';
import { pickTransport } from './transport';

// The transport is chosen once: the preload's bridge in the desktop app, else the WebSocket.
const transport = pickTransport(window);
createRoot(document.getElementById('root')!).render(<App transport={transport} />);
