import { useState } from 'preact/hooks';
import { get, post } from '../api';
import { useAction, useLoad } from '../ui/async';
import { ErrorNote, Field, Section, when } from '../ui/parts';

interface SystemEvent { position: number; occurredAt: string; actor: string; data: Record<string, unknown> }
interface Lifecycle {
  memories: Record<'active' | 'archived' | 'forgotten' | 'erased', number>;
  atoms: Record<string, number>;
  decay: { ticks: number; last: SystemEvent | null };
  backups: { count: number; latest: SystemEvent[] };
}

const bytes = (n: unknown): string => (typeof n === 'number' ? `${(n / 1024 / 1024).toFixed(1)} MiB` : '');

function Counts({ label, counts }: { label: string; counts: Record<string, number> }) {
  const entries = Object.entries(counts);
  return (
    <table class="counts" aria-label={label} data-testid={label.toLowerCase().replace(/\W+/g, '-')}>
      <caption class="muted">{label}</caption>
      <tbody>{entries.length ? entries.map(([k, n]) => <tr key={k}><th>{k}</th><td class="num">{n}</td></tr>) : <tr><td class="muted">none</td></tr>}</tbody>
    </table>
  );
}

/** Takes a backup to a path the operator names (outside the data dir, the server checks it). */
function BackupForm({ onDone }: { onDone: () => void }) {
  const [path, setPath] = useState('');
  const run = useAction(async () => {
    const receipt = await post<{ path: string; bytes: number; position: number }>('/v1/backups', { path });
    onDone();
    return receipt;
  });
  return (
    <form class="filters" aria-label="Take a backup" onSubmit={(e) => (e.preventDefault(), void run.call())}>
      <Field label="Backup file (outside the data dir)" class="wide" value={path} onValue={setPath} required />
      <button type="submit" disabled={run.running || !path}>Take backup</button>
      {run.result ? <span class="ok" role="status" data-testid="backup-done">Backup written at position {run.result.position}</span> : null}
      <ErrorNote error={run.error} />
    </form>
  );
}

/** Lifecycle state (memories and atoms per state, decay ticks) and the backups the log records. */
export function LifecyclePanels() {
  const state = useLoad(() => get<Lifecycle>('/v1/status/lifecycle', { backups: 20 }), []);
  const s = state.data;
  return (
    <>
      <Section title="Lifecycle">
        <ErrorNote error={state.error} />
        {s ? (
          <>
            <div class="actions">
              <Counts label="Memories by state" counts={s.memories} />
              <Counts label="Atoms by state" counts={s.atoms} />
            </div>
            <p data-testid="decay">
              {s.decay.last
                ? `${s.decay.ticks} decay ticks; the last at #${s.decay.last.position}, for ${String(s.decay.last.data.date)} (appended ${when(s.decay.last.occurredAt)}), affected ${String(s.decay.last.data.affected)} (rate ${String(s.decay.last.data.decayRate)})`
                : 'No decay tick recorded in the log.'}
            </p>
          </>
        ) : null}
      </Section>
      <Section title="Backups">
        <BackupForm onDone={state.reload} />
        {s?.backups.latest.length ? (
          <div class="table-wrap">
            <table aria-label="Backups, newest first" data-testid="backups">
              <thead><tr><th class="num">Position</th><th>Taken</th><th>File</th><th class="num">Size</th><th class="hide-narrow">By</th></tr></thead>
              <tbody>
                {s.backups.latest.map((b) => (
                  <tr key={b.position}>
                    <td class="num">{String(b.data.position)}</td><td>{when(b.occurredAt)}</td><td class="path">{String(b.data.path)}</td>
                    <td class="num">{bytes(b.data.bytes)}</td><td class="hide-narrow">{b.actor}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : s ? <p class="muted">No backup recorded in the log.</p> : null}
        {s && s.backups.count > s.backups.latest.length ? <p class="muted">{s.backups.count} backups in all; the latest {s.backups.latest.length} shown.</p> : null}
      </Section>
    </>
  );
}
