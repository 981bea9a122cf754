import { useState } from 'preact/hooks';
import { post } from '../api';
import { href, type Route } from '../router';
import type { RecallAnswer, Recalled } from '../types';
import { useAction } from '../ui/async';
import { ErrorNote, Field, Section, Select } from '../ui/parts';

// The engine's default injection budget (recall settings maxInjectionChars / maxMemoryChars).
export const injectionBudget = { total: 6000, perMemory: 800 };

const fmt = (n: unknown): string => (typeof n === 'number' ? (Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(4)) : String(n));

/** Every step of one memory's score, in the order the pipeline took them (routes, fusion, weights, bonuses, rerank, MMR, final). */
export function ScoreSteps({ memory }: { memory: Recalled }) {
  const explain = memory.explain ?? {};
  return (
    <div>
      {Object.entries(explain).map(([step, value]) => (
        <div key={step}>
          <strong>{step}</strong>{' '}
          {value !== null && typeof value === 'object' ? (
            <ul class="steps" aria-label={`${step} scores`}>
              {Object.entries(value as Record<string, unknown>).map(([name, n]) => <li key={name}>{name} {fmt(n)}</li>)}
            </ul>
          ) : <span>{fmt(value)}</span>}
        </div>
      ))}
    </div>
  );
}

export function Injection({ answer }: { answer: RecallAnswer }) {
  const { text, included, dropped } = answer.injection;
  const longest = Math.max(0, ...answer.memories.filter((m) => included.includes(m.memoryId)).map((m) => (m.facts.length ? m.facts.join(' ') : m.text).length));
  return (
    <Section title="Injection preview">
      <p class="budget" data-testid="budget">
        {text.length.toLocaleString('en')} of {injectionBudget.total.toLocaleString('en')} characters · {included.length} included, {dropped.length} dropped
        · each memory cut at {injectionBudget.perMemory} characters (longest here {Math.min(longest, injectionBudget.perMemory)})
      </p>
      {text ? <div class="injection" data-testid="injection" tabIndex={0}>{text}</div> : <p class="muted">Nothing would be injected.</p>}
      {dropped.length ? <p class="muted">Left out (budget): {dropped.join(', ')}</p> : null}
    </Section>
  );
}

export function RecallResults({ answer }: { answer: RecallAnswer }) {
  return (
    <div class="table-wrap">
      <table aria-label="Recalled memories" data-testid="recall-results">
        <thead><tr><th class="num">#</th><th>Memory</th><th class="num">Score</th><th>Score steps</th></tr></thead>
        <tbody>
          {answer.memories.map((m, i) => (
            <tr key={m.memoryId}>
              <td class="num">{i + 1}</td>
              <td class="text"><a href={href(['memories', m.memoryId])}>{m.text.slice(0, 200)}</a>{m.facts.length ? <div class="muted">facts: {m.facts.join(' · ')}</div> : null}</td>
              <td class="num">{m.score.toFixed(4)}</td>
              <td><ScoreSteps memory={m} /></td>
            </tr>
          ))}
        </tbody>
      </table>
      {answer.memories.length === 0 ? <p class="muted">No memory recalled.</p> : null}
    </div>
  );
}

/** Type a query, pick a scope, and see the ranking with every score step and the injection it would make. */
export function RecallPage({ route }: { route: Route }) {
  const [query, setQuery] = useState(route.query.get('q') ?? '');
  const [mode, setMode] = useState('global');
  const [sessionId, setSession] = useState(route.query.get('session') ?? '');
  const [userId, setUser] = useState('');
  const [personaId, setPersona] = useState('');
  const [topK, setTopK] = useState('5');
  const [at, setAt] = useState('');
  const run = useAction(async () => {
    const scope: Record<string, string> = { mode };
    if (sessionId) scope.sessionId = sessionId;
    if (userId) scope.userId = userId;
    if (personaId) scope.personaId = personaId;
    const body = { query, scope, topK: Number(topK), explain: true };
    return post<RecallAnswer>(at ? '/v1/recall-at' : '/v1/search', at ? { ...body, at } : body);
  });
  const answer = run.result;
  return (
    <>
      <h1>Recall debugger</h1>
      <form class="filters" onSubmit={(e) => (e.preventDefault(), void run.call())} aria-label="Recall query">
        <Field class="wide" label="Query" value={query} onValue={setQuery} required />
        <Select label="Scope" value={mode} onValue={setMode} options={[['global', 'global'], ['session', 'session'], ['user', 'user'], ['legacy', 'legacy']]} />
        <Field label="Session" value={sessionId} onValue={setSession} />
        <Field label="User" value={userId} onValue={setUser} />
        <Field label="Persona" value={personaId} onValue={setPersona} />
        <Field label="Top K" type="number" min="1" max="10" value={topK} onValue={setTopK} />
        <Field label="As of (position or time, optional)" value={at} onValue={setAt} />
        <button type="submit" class="primary" disabled={run.running || !query.trim()}>Recall</button>
      </form>
      <ErrorNote error={run.error} />
      {answer ? (
        <>
          <Section title="Ranked results">
            {answer.position !== undefined ? <p class="muted">As of position {answer.position} ({answer.asOf})</p> : null}
            <p class="muted">{answer.cacheHit ? 'Served from the recall cache.' : 'Computed now.'}</p>
            <RecallResults answer={answer} />
          </Section>
          <Injection answer={answer} />
        </>
      ) : null}
    </>
  );
}
