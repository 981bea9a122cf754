import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../api';
import { href } from '../router';
import type { Memory, RecallAnswer } from '../types';
import { useAction, useLoad } from '../ui/async';
import { ErrorNote, Field, Loading, Section, Status, when } from '../ui/parts';
import { Injection, RecallResults } from './recall';

interface PastList { position: number; asOf: string; items: Memory[]; total: number }
interface Diff {
  from: { position: number; asOf: string };
  to: { position: number; asOf: string };
  added: Memory[];
  changed: { memoryId: string; changes: { field: string; before: unknown; after: unknown }[] }[];
  forgotten: { memoryId: string; before: Memory | null; reason: string | null }[];
  archived: { memoryId: string; reason: string | null }[];
}

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

function DiffView({ diff }: { diff: Diff }) {
  return (
    <div data-testid="diff">
      <p class="muted">From position {diff.from.position} ({when(diff.from.asOf)}) to {diff.to.position} ({when(diff.to.asOf)})</p>
      <ul>
        {diff.added.map((m) => <li key={m.memoryId} class="added">+ <a href={href(['memories', m.memoryId])}>{m.text.slice(0, 140)}</a></li>)}
        {diff.changed.map((c) => (
          <li key={c.memoryId} class="changed">~ <a href={href(['memories', c.memoryId])}>{c.memoryId}</a>: {c.changes.map((f) => `${f.field} ${show(f.before)} → ${show(f.after)}`).join('; ')}</li>
        ))}
        {diff.archived.map((a) => <li key={a.memoryId} class="changed">archived {a.memoryId}{a.reason ? `: ${a.reason}` : ''}</li>)}
        {diff.forgotten.map((f) => <li key={f.memoryId} class="removed">− {f.before?.text.slice(0, 140) ?? f.memoryId}{f.reason ? ` (${f.reason})` : ''}</li>)}
      </ul>
      {diff.added.length + diff.changed.length + diff.archived.length + diff.forgotten.length === 0 ? <p class="muted">No memory changed between these points.</p> : null}
    </div>
  );
}

/** The store as it was at a position or time: its memories, a recall as it would have answered, and a diff between two points. */
export function TimeTravel({ position }: { position: number }) {
  const [at, setAt] = useState(String(position));
  const [applied, setApplied] = useState(String(position));
  useEffect(() => (setAt(String(position)), setApplied(String(position))), [position]);
  const past = useLoad(() => (applied ? get<PastList>('/v1/at/memories', { at: applied, limit: 50 }) : Promise.resolve(undefined)), [applied]);
  const [query, setQuery] = useState('');
  const recall = useAction(() => post<RecallAnswer>('/v1/recall-at', { query, at: applied, scope: { mode: 'global' }, explain: true }));
  const [from, setFrom] = useState('1');
  const [to, setTo] = useState(String(position));
  useEffect(() => setTo(String(position)), [position]);
  const diff = useAction(() => get<Diff>('/v1/diff', { from, to }));
  return (
    <Section title="Time travel">
      <form class="filters" onSubmit={(e) => (e.preventDefault(), setApplied(at))}>
        <Field label="As of (log position or ISO time)" value={at} onValue={setAt} />
        <button type="submit">Show the store then</button>
      </form>
      <ErrorNote error={past.error} />
      <Loading when={past.loading} />
      {past.data ? (
        <>
          <p class="muted" data-testid="past-summary">{past.data.total} memories at position {past.data.position} ({when(past.data.asOf)})</p>
          <div class="table-wrap">
            <table aria-label="Memories as of this point">
              <thead><tr><th>Text</th><th>Status</th><th class="num">Importance</th><th>Created</th></tr></thead>
              <tbody>
                {past.data.items.map((m) => (
                  <tr key={m.memoryId}><td class="text">{m.text.slice(0, 160)}</td><td><Status value={m.status} /></td><td class="num">{m.importance.toFixed(2)}</td><td>{when(m.createdAt)}</td></tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
      <form class="filters" onSubmit={(e) => (e.preventDefault(), void recall.call())} aria-label="Recall as of this point">
        <Field class="wide" label="Recall as of this point" value={query} onValue={setQuery} />
        <button type="submit" disabled={!query.trim() || recall.running}>Recall then</button>
      </form>
      <ErrorNote error={recall.error} />
      {recall.result ? (<><RecallResults answer={recall.result} /><Injection answer={recall.result} /></>) : null}
      <h3>Diff between two points</h3>
      <form class="filters" onSubmit={(e) => (e.preventDefault(), void diff.call())} aria-label="Diff">
        <Field label="From (position or time)" value={from} onValue={setFrom} />
        <Field label="To (position or time)" value={to} onValue={setTo} />
        <button type="submit" disabled={diff.running}>Show diff</button>
      </form>
      <ErrorNote error={diff.error} />
      {diff.result ? <DiffView diff={diff.result} /> : null}
    </Section>
  );
}
