import { useEffect, useState } from 'preact/hooks';
import { get, patch, post } from '../api';
import { href } from '../router';
import type { HistoryEntry, Memory } from '../types';
import { useAction, useLoad } from '../ui/async';
import { Dialog, ErrorNote, Field, Json, Loading, Section, Status, when } from '../ui/parts';

interface Details {
  atoms: { atomId: string; content: string; atomType: string; status: string; confidence?: number; createdAt: string }[];
  graph: { entries: { entryId: string; text: string; nodes: { key: string; type: string; value: string }[] }[]; edges: { source: string; target: string; relation: string; weight: number }[] };
  sources: { messageId?: string; role?: string; content?: string; [k: string]: unknown }[];
}

const enc = encodeURIComponent;

/** One memory: its text, atoms, graph entries, sources and every event in its history; edit and lifecycle actions. */
export function MemoryPage({ id }: { id: string }) {
  const memory = useLoad(() => get<Memory>(`/v1/memories/${enc(id)}`), [id]);
  const history = useLoad(() => get<{ entries: HistoryEntry[] }>(`/v1/history/${enc(id)}`), [id]);
  const details = useLoad(() => get<Details>(`/v1/memories/${enc(id)}/details`), [id]);
  const refresh = () => (memory.reload(), history.reload(), details.reload());
  const m = memory.data;
  return (
    <>
      <p><a href={href(['memories'])}>← All memories</a></p>
      <h1>Memory {id}</h1>
      <ErrorNote error={memory.error} />
      <Loading when={memory.loading && !m} />
      {m ? (
        <div class="grid2">
          <Section title="Memory">
            <dl class="facts">
              <dt>Status</dt><dd><Status value={m.status} /></dd>
              <dt>Importance</dt><dd>{m.importance.toFixed(2)}</dd>
              <dt>Session</dt><dd>{m.sessionId ? <a href={href(['replay', m.sessionId])}>{m.sessionId}</a> : '—'}</dd>
              <dt>User</dt><dd>{m.userId ?? '—'}</dd>
              <dt>Persona</dt><dd>{m.personaId ?? '—'}</dd>
              <dt>Topics</dt><dd>{m.topics.join(', ') || '—'}</dd>
              <dt>Created</dt><dd>{when(m.createdAt)}</dd>
              <dt>Updated</dt><dd>{when(m.updatedAt)}</dd>
            </dl>
            <p data-testid="memory-text">{m.text}</p>
            <Lifecycle memory={m} onChanged={refresh} />
          </Section>
          <Editor memory={m} onSaved={refresh} />
        </div>
      ) : null}
      <Section title="History">
        <ErrorNote error={history.error} />
        <div class="table-wrap">
          <table aria-label="History" data-testid="history">
            <thead><tr><th class="num">Position</th><th>Time</th><th>Event</th><th>Actor</th><th class="hide-narrow">Correlation</th><th class="hide-narrow">Causation</th><th>What</th></tr></thead>
            <tbody>
              {(history.data?.entries ?? []).map((e) => (
                <tr key={e.eventId}>
                  <td class="num">{e.position}</td><td>{when(e.occurredAt)}</td><td>{e.type}</td><td>{e.actor}</td>
                  <td class="hide-narrow">{e.correlationId}</td><td class="hide-narrow">{e.causationId}</td><td>{e.description}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </Section>
      <DetailsView details={details.data} error={details.error} />
    </>
  );
}

function DetailsView({ details, error }: { details: Details | undefined; error: Error | undefined }) {
  return (
    <div class="grid2">
      <Section title="Atoms">
        <ErrorNote error={error} />
        {details?.atoms.length ? (
          <ul>{details.atoms.map((a) => <li key={a.atomId}>{a.content} <span class="muted">({a.atomType}, {a.status})</span></li>)}</ul>
        ) : <p class="muted">No atoms.</p>}
      </Section>
      <Section title="Graph entries">
        {details?.graph.entries.length ? (
          <ul>
            {details.graph.entries.map((e) => (
              <li key={e.entryId}>{e.text}<br /><span class="muted">{e.nodes.map((n) => `${n.type}: ${n.value}`).join(' · ')}</span></li>
            ))}
          </ul>
        ) : <p class="muted">No graph entries.</p>}
        {details?.graph.edges.length ? <p class="muted">{details.graph.edges.map((e) => `${e.source} —${e.relation}→ ${e.target}`).join('; ')}</p> : null}
      </Section>
      <Section title="Sources">
        {details?.sources.length ? <Json value={details.sources} label="Source messages" /> : <p class="muted">Written directly, not from messages.</p>}
      </Section>
    </div>
  );
}

function Editor({ memory, onSaved }: { memory: Memory; onSaved: () => void }) {
  const [text, setText] = useState(memory.text);
  const [importance, setImportance] = useState(String(memory.importance));
  const [topics, setTopics] = useState(memory.topics.join(', '));
  useEffect(() => (setText(memory.text), setImportance(String(memory.importance)), setTopics(memory.topics.join(', '))), [memory.updatedAt]);
  const save = useAction(async () => {
    const changes: Record<string, unknown> = {};
    if (text !== memory.text) changes.text = text;
    if (Number(importance) !== memory.importance) changes.importance = Number(importance);
    const list = topics.split(',').map((t) => t.trim()).filter(Boolean);
    if (list.join(',') !== memory.topics.join(',')) changes.topics = list;
    await patch(`/v1/memories/${enc(memory.memoryId)}`, changes);
    onSaved();
  });
  return (
    <Section title="Edit">
      <form onSubmit={(e) => (e.preventDefault(), void save.call())}>
        <label class="field"><span>Text</span>
          <textarea value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
        </label>
        <div class="filters">
          <Field label="Importance (0–1)" type="number" step="any" min="0" max="1" value={importance} onValue={setImportance} />
          <Field class="wide" label="Topics (comma-separated)" value={topics} onValue={setTopics} />
        </div>
        <button type="submit" class="primary" disabled={save.running}>Save changes</button>
        <ErrorNote error={save.error} />
      </form>
    </Section>
  );
}

function Lifecycle({ memory, onChanged }: { memory: Memory; onChanged: () => void }) {
  const [forgetting, setForgetting] = useState(false);
  const [reason, setReason] = useState('');
  const act = useAction(async (name: 'archive' | 'restore' | 'forget') => {
    await post(`/v1/memories/${enc(memory.memoryId)}/${name}`, reason ? { reason } : {});
    setForgetting(false);
    onChanged();
  });
  const gone = memory.status === 'forgotten' || memory.status === 'erased';
  return (
    <div class="actions">
      <button type="button" disabled={gone || memory.status === 'archived' || act.running} onClick={() => act.call('archive')}>Archive</button>
      <button type="button" disabled={memory.status !== 'archived' || act.running} onClick={() => act.call('restore')}>Restore</button>
      <button type="button" class="danger" disabled={gone || act.running} onClick={() => setForgetting(true)}>Forget…</button>
      <ErrorNote error={act.error} />
      <Dialog open={forgetting} title="Forget this memory" onClose={() => setForgetting(false)}>
        <p>{memory.text.slice(0, 300)}</p>
        <Field label="Reason (recorded in the log)" value={reason} onValue={setReason} />
        <div class="actions">
          <button type="button" class="danger" onClick={() => act.call('forget')}>Forget</button>
          <button type="button" onClick={() => setForgetting(false)}>Cancel</button>
        </div>
      </Dialog>
    </div>
  );
}
