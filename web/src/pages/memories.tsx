import { useState } from 'preact/hooks';
import { get, post } from '../api';
import { href, navigate, type Route } from '../router';
import type { Memory, MemoryPage } from '../types';
import { useLoad } from '../ui/async';
import { Dialog, ErrorNote, Field, Loading, Select, Status, when } from '../ui/parts';

const filterKeys = ['text', 'status', 'sessionId', 'userId', 'personaId', 'minImportance', 'maxImportance', 'createdFrom', 'createdTo'] as const;
type Filters = Record<(typeof filterKeys)[number], string>;
const pageSize = 50;

const filtersOf = (route: Route): Filters =>
  Object.fromEntries(filterKeys.map((k) => [k, route.query.get(k) ?? ''])) as Filters;

/** Every memory in a table: filters run on the server, keyset paging, so 100k memories never load at once. */
export function MemoriesPage({ route }: { route: Route }) {
  const applied = filtersOf(route);
  const [draft, setDraft] = useState<Filters>(applied);
  // The cursors of the pages before this one, to go back without offsets.
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [confirming, setConfirming] = useState(false);
  const key = JSON.stringify(applied);
  const page = useLoad(() => get<MemoryPage>('/v1/memories', { ...applied, limit: pageSize, cursor }), [key, cursor]);

  const apply = (e: Event) => {
    e.preventDefault();
    setCursors([]);
    setSelected(new Set());
    navigate(href(['memories'], draft), true);
  };
  const toggle = (id: string) => setSelected((s) => {
    const next = new Set(s);
    if (!next.delete(id)) next.add(id);
    return next;
  });
  const items = page.data?.items ?? [];
  const allOnPage = items.length > 0 && items.every((m) => selected.has(m.memoryId));
  const set = (k: keyof Filters) => (v: string) => setDraft({ ...draft, [k]: v });

  return (
    <>
      <h1>Memories</h1>
      <form class="filters" onSubmit={apply} aria-label="Filter memories">
        <Field class="wide" label="Text contains" type="search" value={draft.text} onValue={set('text')} />
        <Select label="Status" value={draft.status} onValue={set('status')} options={[['', 'any'], ['active', 'active'], ['archived', 'archived'], ['forgotten', 'forgotten'], ['erased', 'erased']]} />
        <Field label="Session" value={draft.sessionId} onValue={set('sessionId')} />
        <Field label="User" value={draft.userId} onValue={set('userId')} />
        <Field label="Persona" value={draft.personaId} onValue={set('personaId')} />
        <Field label="Importance ≥" type="number" step="any" min="0" max="1" value={draft.minImportance} onValue={set('minImportance')} />
        <Field label="Importance ≤" type="number" step="any" min="0" max="1" value={draft.maxImportance} onValue={set('maxImportance')} />
        <Field label="Created from" type="date" value={draft.createdFrom} onValue={set('createdFrom')} />
        <Field label="Created to" type="date" value={draft.createdTo} onValue={set('createdTo')} />
        <button type="submit" class="primary">Apply</button>
      </form>
      <ErrorNote error={page.error} />
      <div class="actions">
        <span aria-live="polite" data-testid="total">{page.data ? `${page.data.total} memories match` : ''}</span>
        <button type="button" disabled={selected.size === 0} onClick={() => setConfirming(true)}>Forget selected ({selected.size})</button>
        <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>Previous page</button>
        <button type="button" disabled={!page.data?.nextCursor} onClick={() => page.data?.nextCursor && setCursors([...cursors, page.data.nextCursor])}>Next page</button>
        <span class="muted">page {cursors.length + 1}</span>
      </div>
      <Loading when={page.loading && !page.data} />
      <div class="table-wrap">
        <table aria-label="Memories">
          <thead>
            <tr>
              <th><input type="checkbox" aria-label="Select every memory on this page" checked={allOnPage}
                onChange={() => setSelected(allOnPage ? new Set() : new Set([...selected, ...items.map((m) => m.memoryId)]))} /></th>
              <th>Text</th><th>Status</th><th class="num">Importance</th><th class="hide-narrow">Session</th>
              <th class="hide-narrow">User</th><th class="hide-narrow">Persona</th><th>Created</th>
            </tr>
          </thead>
          <tbody>
            {items.map((m) => (
              <tr key={m.memoryId} class={selected.has(m.memoryId) ? 'selected' : ''}>
                <td><input type="checkbox" aria-label={`Select ${m.text.slice(0, 40)}`} checked={selected.has(m.memoryId)} onChange={() => toggle(m.memoryId)} /></td>
                <td class="text"><a href={href(['memories', m.memoryId])}>{m.text.length > 160 ? `${m.text.slice(0, 160)}…` : m.text}</a></td>
                <td><Status value={m.status} /></td>
                <td class="num">{m.importance.toFixed(2)}</td>
                <td class="hide-narrow">{m.sessionId ?? '—'}</td>
                <td class="hide-narrow">{m.userId ?? '—'}</td>
                <td class="hide-narrow">{m.personaId ?? '—'}</td>
                <td>{when(m.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {page.data && items.length === 0 ? <p class="muted">No memory matches these filters.</p> : null}
      <BatchForget open={confirming} ids={[...selected]} known={items} onClose={() => setConfirming(false)}
        onDone={() => (setSelected(new Set()), setConfirming(false), page.reload())} />
    </>
  );
}

/** Batch forget: a preview of what goes (text, status), a reason, then one forget per memory with progress. */
function BatchForget({ open, ids, known, onClose, onDone }: { open: boolean; ids: string[]; known: Memory[]; onClose: () => void; onDone: () => void }) {
  const [reason, setReason] = useState('');
  const [progress, setProgress] = useState<{ done: number; failed: string[] } | null>(null);
  const byId = new Map(known.map((m) => [m.memoryId, m]));
  const run = async () => {
    const failed: string[] = [];
    for (const [i, id] of ids.entries()) {
      setProgress({ done: i, failed });
      try {
        await post(`/v1/memories/${encodeURIComponent(id)}/forget`, reason ? { reason } : {});
      } catch (error) {
        failed.push(`${id}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    setProgress({ done: ids.length, failed });
    if (failed.length === 0) (setProgress(null), onDone());
  };
  return (
    <Dialog open={open} title={`Forget ${ids.length} memories`} onClose={() => (setProgress(null), onClose())}>
      <p>These memories will be forgotten (each gets a MemoryForgotten event; history keeps them):</p>
      <ul data-testid="forget-preview">
        {ids.map((id) => <li key={id}>{byId.get(id)?.text.slice(0, 120) ?? id} <span class="muted">({byId.get(id)?.status ?? 'not on this page'})</span></li>)}
      </ul>
      <Field label="Reason (recorded in the log)" value={reason} onValue={setReason} />
      {progress ? <p aria-live="polite">{progress.done} of {ids.length} forgotten</p> : null}
      {progress?.failed.map((f) => <p class="error" key={f}>{f}</p>)}
      <div class="actions">
        <button type="button" class="danger" disabled={progress !== null && progress.done < ids.length} onClick={run}>Forget {ids.length}</button>
        <button type="button" onClick={onClose}>Cancel</button>
      </div>
    </Dialog>
  );
}
