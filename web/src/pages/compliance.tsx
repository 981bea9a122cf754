import { useState } from 'preact/hooks';
import { api, followJob, post, token, type Job } from '../api';
import { useAction } from '../ui/async';
import { ErrorNote, Field, Json, Section, Select } from '../ui/parts';

interface Manifest { subject: { kind: string; id: string | null }; counts: Record<string, number>; files: { name: string; bytes?: number; records?: number }[]; log: { position: string } }
interface Verification { ok: boolean; problems: string[]; signature: { ok?: boolean; [k: string]: unknown }; chainHead: unknown }

const enc = encodeURIComponent;

/** Downloads one export file through fetch, so a bearer token goes with it. */
async function download(exportId: string, name: string): Promise<void> {
  const bearer = token.get();
  const response = await fetch(`/v1/compliance/exports/${enc(exportId)}/files/${enc(name)}`, bearer ? { headers: { authorization: `Bearer ${bearer}` } } : {});
  if (!response.ok) throw new Error(`download failed: ${response.status}`);
  const url = URL.createObjectURL(await response.blob());
  const a = Object.assign(document.createElement('a'), { href: url, download: `${exportId}-${name}` });
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function Counts({ counts, testid }: { counts: Record<string, number>; testid: string }) {
  return (
    <table class="counts" data-testid={testid} aria-label="Record counts">
      <tbody>{Object.entries(counts).map(([k, n]) => <tr key={k}><th>{k}</th><td class="num">{n}</td></tr>)}</tbody>
    </table>
  );
}

function ExportPanel() {
  const [kind, setKind] = useState('user');
  const [id, setId] = useState('');
  const [format, setFormat] = useState('both');
  const [progress, setProgress] = useState<Job | null>(null);
  const [exportId, setExportId] = useState('');
  const subject = () => (kind === 'all' ? { all: true } : { [kind]: id });
  const preview = useAction(() => post<{ counts: Record<string, number>; position: number }>('/v1/compliance/preview', subject()));
  const run = useAction(async () => {
    const job = await post<Job>('/v1/compliance/exports', { ...subject(), format });
    const done = await followJob(job, setProgress);
    if (done.state !== 'succeeded') throw new Error(done.error?.error ?? 'the export failed');
    const result = done.result as { exportId: string; manifest: Manifest };
    setExportId(result.exportId);
    return result;
  });
  const verify = useAction(() => post<Verification>(`/v1/compliance/exports/${enc(exportId)}/verify`));
  const get = useAction((name: string) => download(exportId, name));
  return (
    <Section title="Subject export">
      <form class="filters" onSubmit={(e) => (e.preventDefault(), void preview.call())} aria-label="Export subject">
        <Select label="Subject" value={kind} onValue={setKind} options={[['user', 'user'], ['session', 'session'], ['persona', 'persona'], ['all', 'everything']]} />
        {kind !== 'all' ? <Field label="Id" value={id} onValue={setId} required /> : null}
        <Select label="Format" value={format} onValue={setFormat} options={[['both', 'JSONL and CSV'], ['jsonl', 'JSONL'], ['csv', 'CSV']]} />
        <button type="submit">Preview counts</button>
        <button type="button" class="primary" disabled={run.running || (kind !== 'all' && !id)} onClick={() => void run.call()}>Export</button>
      </form>
      <ErrorNote error={preview.error ?? run.error} />
      {preview.result ? <><p>Up to position {preview.result.position}, the export would hold:</p><Counts counts={preview.result.counts} testid="export-preview" /></> : null}
      {run.running && progress ? <p aria-live="polite">Exporting… {progress.progress.step ?? ''}</p> : null}
      {run.result ? (
        <div data-testid="export-done">
          <p class="ok">Export {run.result.exportId} written up to position {run.result.manifest.log.position}.</p>
          <Counts counts={run.result.manifest.counts} testid="export-counts" />
          <div class="actions">
            {['manifest.json', 'manifest.sig', ...run.result.manifest.files.map((f) => f.name)].map((name) => (
              <button type="button" key={name} onClick={() => void get.call(name)}>Download {name}</button>
            ))}
          </div>
          <ErrorNote error={get.error} />
        </div>
      ) : null}
      <form class="filters" onSubmit={(e) => (e.preventDefault(), void verify.call())} aria-label="Verify an export">
        <Field label="Export id" value={exportId} onValue={setExportId} />
        <button type="submit" disabled={!exportId || verify.running}>Verify export</button>
      </form>
      <ErrorNote error={verify.error} />
      {verify.result ? (
        <div data-testid="verify-result">
          <p class={verify.result.ok ? 'ok' : 'error'}>{verify.result.ok ? 'Signature, digests and counts check out.' : `${verify.result.problems.length} problems found`}</p>
          <ul>{verify.result.problems.map((p) => <li key={p}>{p}</li>)}</ul>
          <Json value={{ signature: verify.result.signature, chainHead: verify.result.chainHead }} label="Verification details" />
        </div>
      ) : null}
    </Section>
  );
}

function ErasurePanel() {
  const [kind, setKind] = useState('user');
  const [id, setId] = useState('');
  const [reason, setReason] = useState('');
  const [typed, setTyped] = useState('');
  const [progress, setProgress] = useState<Job | null>(null);
  const phrase = `erase ${kind} ${id}`;
  const preview = useAction(() => post<{ sealedEvents: number; byType: Record<string, number> }>('/v1/erasures/preview', { kind, id }));
  const erase = useAction(async () => {
    const job = await api<Job>('POST', '/v1/erasures', { kind, id, reason });
    const done = await followJob(job, setProgress);
    if (done.state !== 'succeeded') throw new Error(done.error?.error ?? 'the erasure failed');
    setTyped('');
    return done.result as Record<string, unknown>;
  });
  return (
    <Section title="Erasure">
      <p>Erasure crypto-shreds every event of the subject: their text can never be read again, from the store or its backups.</p>
      <form class="filters" onSubmit={(e) => (e.preventDefault(), erase.reset(), void preview.call())} aria-label="Erase subject">
        <Select label="Subject" value={kind} onValue={(v) => (setKind(v), preview.reset())} options={[['user', 'user'], ['session', 'session'], ['persona', 'persona']]} />
        <Field label="Id" value={id} onValue={(v) => (setId(v), preview.reset())} required />
        <button type="submit" disabled={!id}>Preview erasure</button>
      </form>
      <ErrorNote error={preview.error} />
      {preview.result ? (
        <div data-testid="erase-preview">
          <p>{preview.result.sealedEvents} sealed events would become unreadable:</p>
          <Counts counts={preview.result.byType} testid="erase-counts" />
          <Field class="wide" label="Reason (recorded in the log)" value={reason} onValue={setReason} />
          <Field class="wide" label={`Type "${phrase}" to confirm`} value={typed} onValue={setTyped} autoComplete="off" />
          <div class="actions">
            <button type="button" class="danger" disabled={typed !== phrase || !reason || erase.running} onClick={() => void erase.call()}>Erase {kind} {id}</button>
          </div>
        </div>
      ) : null}
      {erase.running && progress ? <p aria-live="polite">Erasing… {progress.progress.step ?? ''}</p> : null}
      <ErrorNote error={erase.error} />
      {erase.result ? <div data-testid="erase-done"><p class="ok">Erased.</p><Json value={erase.result} label="Erasure receipt" /></div> : null}
    </Section>
  );
}

/** Compliance requests: what a subject's export holds, the export and its check, and erasure. */
export function CompliancePage() {
  return (
    <>
      <h1>Compliance</h1>
      <ExportPanel />
      <ErasurePanel />
    </>
  );
}
