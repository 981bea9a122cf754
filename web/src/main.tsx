import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { token, unauthorizedEvent } from './api';
import { CompliancePage } from './pages/compliance';
import { GraphPage } from './pages/graph';
import { MemoriesPage } from './pages/memories';
import { MemoryPage } from './pages/memory';
import { RecallPage } from './pages/recall';
import { ReplayPage } from './pages/replay';
import { StatusPage } from './pages/status';
import { href, useRoute, type Route } from './router';
import './styles.css';

const sections = [
  ['memories', 'Memories'],
  ['recall', 'Recall debugger'],
  ['replay', 'Session replay'],
  ['graph', 'Graph'],
  ['compliance', 'Compliance'],
  ['status', 'Status'],
] as const;

function Page({ route }: { route: Route }) {
  const [section = 'memories', id] = route.parts;
  if (section === 'memories' && id) return <MemoryPage id={id} />;
  if (section === 'recall') return <RecallPage route={route} />;
  if (section === 'replay') return <ReplayPage route={route} />;
  if (section === 'graph') return <GraphPage route={route} />;
  if (section === 'compliance') return <CompliancePage />;
  if (section === 'status') return <StatusPage />;
  return <MemoriesPage route={route} />;
}

/** Asks for a bearer token once the server answers 401 (a server with tokens configured). */
function TokenPrompt() {
  const [needed, setNeeded] = useState(false);
  const [value, setValue] = useState('');
  useEffect(() => {
    const ask = () => setNeeded(true);
    window.addEventListener(unauthorizedEvent, ask);
    return () => window.removeEventListener(unauthorizedEvent, ask);
  }, []);
  if (!needed) return null;
  return (
    <form class="token" onSubmit={(e) => (e.preventDefault(), token.set(value), location.reload())}>
      <label>API token <input type="password" value={value} onInput={(e) => setValue((e.target as HTMLInputElement).value)} /></label>
      <button type="submit">Use token</button>
    </form>
  );
}

function App() {
  const route = useRoute();
  const current = route.parts[0] ?? 'memories';
  useEffect(() => {
    const name = sections.find(([key]) => key === current)?.[1] ?? 'Memories';
    document.title = `${name} · LivingMemory`;
  }, [current]);
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>Skip to content</a>
      <header class="top">
        <strong class="brand">LivingMemory</strong>
        <nav aria-label="Sections">
          <ul>
            {sections.map(([key, label]) => (
              <li key={key}>
                <a href={href([key])} aria-current={current === key ? 'page' : undefined}>{label}</a>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <TokenPrompt />
      <main id="main" tabIndex={-1}>
        <Page route={route} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app') as HTMLElement);
