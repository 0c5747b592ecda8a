import { createRoot } from 'react-dom/client';

function App() {
  return <main>Rigdesk</main>;
}

createRoot(document.getElementById('root')!).render(<App />);
