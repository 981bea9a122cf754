import { useEffect, useState } from 'preact/hooks';
import { followJob, get, post, type Job } from '../api';
import { useAction, useLoad } from '../ui/async';
import { ErrorNote, Json, Loading, Section, Select, Status } from '../ui/parts';
import { LifecyclePanels } from './status-lifecycle';

interface Building { generation: number; checkpoint: number }
interface ProjectionStatus { name: string; version: number; generation: number; checkpoint: number; building: Building | null }
interface VectorStatus { name: string; generation: number; checkpoint: number; size: number; pending: number; building: Building | null }
interface StoreStatus {
  headPosition: number;
  projections: ProjectionStatus[];
  vectors: VectorStatus;
  graphVectors: VectorStatus;
  maintenance: { state: string; progress: { done: number; total: number } | null; lastError: string | null; needsIndexRebuild: boolean | string | null; [k: string]: unknown };
  memories: { active: number; all: number };
  [k: string]: unknown;
}

const known = new Set(['headPosition', 'projections', 'vectors', 'graphVectors', 'maintenance', 'memories']);

function ProjectionRows({ status }: { status: StoreStatus }) {
  const rows = [...status.projections, { ...status.vectors, version: '—' }, { ...status.graphVectors, version: '—' }];
  return (
    <div class="table-wrap">
      <table aria-label="Projections" data-testid="projections">
        <thead><tr><th>Projection</th><th class="num">Version</th><th class="num">Generation</th><th class="num">Checkpoint</th><th class="num">Lag</th><th>Rebuild</th></tr></thead>
        <tbody>
          {rows.map((p) => (
            <tr key={p.name}>
              <td>{p.name}</td><td class="num">{p.version}</td><td class="num">{p.generation}</td><td class="num">{p.checkpoint}</td>
              <td class="num">{Math.max(0, status.headPosition - p.checkpoint)}</td>
              <td>{p.building ? <span class="badge badge-running">building gen {p.building.generation} at {p.building.checkpoint} of {status.headPosition}</span> : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Rebuild({ projections, onProgress }: { projections: string[]; onProgress: () => void }) {
  const [target, setTarget] = useState('all');
  const [job, setJob] = useState<Job | null>(null);
  const run = useAction(async () => {
    const started = await post<Job>('/v1/rebuilds', { target });
    setJob(started);
    const done = await followJob(started, (view) => (setJob(view), onProgress()));
    setJob(done);
    onProgress();
    if (done.state !== 'succeeded') throw new Error(done.error?.error ?? 'the rebuild failed');
    return done;
  });
  const options = [['all', 'every projection'], ['index', 'FTS and vector indexes'], ['graph', 'graph and atoms'], ...projections.map((p) => [p, p] as const)] as const;
  return (
    <Section title="Rebuild">
      <form class="filters" onSubmit={(e) => (e.preventDefault(), void run.call())} aria-label="Start a rebuild">
        <Select label="Target" value={target} onValue={setTarget} options={options} />
        <button type="submit" class="primary" disabled={run.running}>Start rebuild</button>
      </form>
      {job ? (
        <div data-testid="rebuild-job" aria-live="polite">
          <Status value={job.state} /> {job.kind} {job.progress.step ? `· ${job.progress.step}` : ''}
          <progress class="progress" max={job.progress.total} value={job.progress.done} aria-label="Rebuild progress" />
          <span class="muted"> {job.progress.done} / {job.progress.total}</span>
        </div>
      ) : null}
      <ErrorNote error={run.error} />
    </Section>
  );
}

/** The store's state: log head, projections with lag and live rebuild progress, maintenance, lifecycle, backups. */
export function StatusPage() {
  const status = useLoad(() => get<StoreStatus>('/v1/status'), []);
  // Refreshed every two seconds while the page is open: rebuilds and maintenance move on their own.
  useEffect(() => {
    const timer = setInterval(status.reload, 2000);
    return () => clearInterval(timer);
  }, []);
  const s = status.data;
  const extra = s ? Object.fromEntries(Object.entries(s).filter(([k]) => !known.has(k))) : {};
  return (
    <>
      <h1>Status</h1>
      <ErrorNote error={status.error} />
      <Loading when={status.loading && !s} />
      {s ? (
        <>
          <Section title="Log">
            <dl class="facts">
              <dt>Head position</dt><dd data-testid="head">{s.headPosition}</dd>
              <dt>Memories</dt><dd>{s.memories.active} active of {s.memories.all}</dd>
              <dt>Maintenance</dt><dd><Status value={s.maintenance.state} />{s.maintenance.progress ? ` ${s.maintenance.progress.done}/${s.maintenance.progress.total}` : ''}{s.maintenance.lastError ? ` · last error: ${s.maintenance.lastError}` : ''}</dd>
              <dt>Index rebuild needed</dt><dd>{s.maintenance.needsIndexRebuild ? String(s.maintenance.needsIndexRebuild) : 'no'}</dd>
            </dl>
          </Section>
          <Section title="Projections"><ProjectionRows status={s} /></Section>
          <Rebuild projections={s.projections.map((p) => p.name)} onProgress={status.reload} />
          {Object.keys(extra).length ? <Section title="More status"><Json value={extra} label="Other status" /></Section> : null}
        </>
      ) : null}
      <LifecyclePanels />
    </>
  );
}
