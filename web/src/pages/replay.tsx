import { useEffect, useState } from 'preact/hooks';
import { get } from '../api';
import { href, navigate, type Route } from '../router';
import type { Memory, ReplayTurn, SessionReplay } from '../types';
import { useLoad } from '../ui/async';
import { ErrorNote, Field, Loading, Section, Status, when } from '../ui/parts';
import { TimeTravel } from './time-travel';

const enc = encodeURIComponent;

interface Session { sessionId: string; messageCount: number; lastSummarizedIndex: number }

function SessionPicker() {
  const sessions = useLoad(() => get<{ sessions: Session[] }>('/v1/sessions'), []);
  return (
    <Section title="Sessions">
      <ErrorNote error={sessions.error} />
      <Loading when={sessions.loading && !sessions.data} />
      <ul data-testid="sessions">
        {(sessions.data?.sessions ?? []).map((s) => (
          <li key={s.sessionId}><a href={href(['replay', s.sessionId])}>{s.sessionId}</a> <span class="muted">{s.messageCount} messages</span></li>
        ))}
      </ul>
      {sessions.data?.sessions.length === 0 ? <p class="muted">No session recorded yet.</p> : null}
    </Section>
  );
}

/** The memories a recall picked, with their text as the store holds it now. */
function Recalled({ ids, scores }: { ids: string[]; scores: number[] }) {
  const docs = useLoad(() => Promise.all(ids.map((id) => get<Memory>(`/v1/memories/${enc(id)}`).catch(() => null))), [ids.join(',')]);
  return (
    <ol>
      {ids.map((id, i) => {
        const doc = docs.data?.[i];
        return (
          <li key={id}>
            <a href={href(['memories', id])}>{doc ? doc.text.slice(0, 160) : id}</a>{' '}
            <span class="muted">score {scores[i]?.toFixed(4) ?? '—'}{doc ? <> · <Status value={doc.status} /></> : null}</span>
          </li>
        );
      })}
    </ol>
  );
}

function TurnView({ turn }: { turn: ReplayTurn }) {
  return (
    <div class="grid2" data-testid="turn">
      <Section title={`Turn ${turn.turn} (positions ${turn.fromPosition}–${turn.toPosition})`}>
        {turn.messages.map((m) => (
          <div class={`message ${m.role}`} key={m.messageId}>
            <strong>{m.role}{m.sender ? ` (${m.sender})` : ''}</strong> <span class="muted">#{m.position} · {when(m.sentAt)}</span>
            <div>{m.content}</div>
          </div>
        ))}
        {turn.rolledBack.map((r) => <p key={r.position} class="changed">Rolled back {r.messageIds.length} messages{r.reset ? ' (reset)' : ''}: {r.reason}</p>)}
        {turn.cleaned.length ? <p class="muted">Injection blocks cleaned from {turn.cleaned.length} messages.</p> : null}
      </Section>
      <Section title="Recalled and injected">
        {turn.recalls.length === 0 ? <p class="muted">No recall in this turn.</p> : null}
        {turn.recalls.map((r) => (
          <div key={r.position} data-testid="turn-recall">
            <p class="muted">Recall at #{r.position}: {r.memoryIds.length} memories, {r.injectedChars} characters injected{r.error ? `, error: ${r.error}` : ''}</p>
            <Recalled ids={[...r.memoryIds]} scores={[...r.scores]} />
          </div>
        ))}
        <h3>Summaries</h3>
        {turn.summaries.length === 0 ? <p class="muted">None.</p> : null}
        <ul>{turn.summaries.map((s) => <li key={`${s.taskId}-${s.position}`}><Status value={s.status} /> task {s.taskId} #{s.position} {s.detail ?? ''} {s.memoryIds.join(', ')}</li>)}</ul>
        {turn.written.map((w) => <p key={w.memoryId} class="added">Wrote <a href={href(['memories', w.memoryId])}>{w.text.slice(0, 120)}</a></p>)}
        {turn.forgotten.map((f) => <p key={f.memoryId} class="removed">Took back {f.memoryId}: {f.reason}</p>)}
      </Section>
    </div>
  );
}

/** A session turn by turn: a slider over its turns, or a jump to a log position, and time travel beside it. */
function SessionView({ sessionId, route }: { sessionId: string; route: Route }) {
  const whole = useLoad(() => get<SessionReplay>(`/v1/sessions/${enc(sessionId)}/replay`), [sessionId]);
  const total = whole.data?.totalTurns ?? 0;
  const asked = route.query.get('position');
  const turnParam = Number(route.query.get('turn') ?? NaN);
  const [turn, setTurn] = useState(Number.isFinite(turnParam) ? turnParam : 1);
  const [position, setPosition] = useState(asked ?? '');
  useEffect(() => setTurn(Number.isFinite(turnParam) ? turnParam : Math.min(1, total)), [sessionId, total]);
  const stop = asked ? { toPosition: asked } : { toTurn: turn };
  const cut = useLoad(() => get<SessionReplay>(`/v1/sessions/${enc(sessionId)}/replay`, stop), [sessionId, JSON.stringify(stop)]);
  const shown = cut.data?.turns.at(-1);
  const move = (n: number) => {
    setTurn(n);
    navigate(href(['replay', sessionId], { turn: n }), true);
  };
  return (
    <>
      <h1>Session {sessionId}</h1>
      <ErrorNote error={whole.error ?? cut.error} />
      <Section title="Replay">
        <div class="slider">
          <label for="turn-slider">Turn</label>
          <input id="turn-slider" type="range" min={0} max={Math.max(total, 0)} step={1} value={turn}
            aria-valuetext={`turn ${turn} of ${total}`} onInput={(e) => move(Number((e.target as HTMLInputElement).value))} />
          <output for="turn-slider" data-testid="turn-label">turn {turn} of {total}</output>
          <button type="button" disabled={turn <= 0} onClick={() => move(turn - 1)}>Previous turn</button>
          <button type="button" disabled={turn >= total} onClick={() => move(turn + 1)}>Next turn</button>
        </div>
        <form class="filters" onSubmit={(e) => (e.preventDefault(), navigate(href(['replay', sessionId], position ? { position } : { turn }), true))}>
          <Field label="Or stop at log position" type="number" min="1" value={position} onValue={setPosition} />
          <button type="submit">Go</button>
          {asked ? <button type="button" onClick={() => (setPosition(''), navigate(href(['replay', sessionId], { turn }), true))}>Back to turns</button> : null}
        </form>
        <p class="muted" aria-live="polite">
          {cut.data ? `Replayed to position ${cut.data.position}: ${cut.data.turns.reduce((n, t) => n + t.messages.length, 0)} messages, ${cut.data.turns.reduce((n, t) => n + t.written.length, 0)} memories written so far` : ''}
        </p>
      </Section>
      <Loading when={cut.loading && !cut.data} />
      {shown ? <TurnView turn={shown} /> : null}
      {cut.data ? <TimeTravel position={cut.data.position} /> : null}
    </>
  );
}

export function ReplayPage({ route }: { route: Route }) {
  const sessionId = route.parts[1];
  return sessionId ? <SessionView sessionId={sessionId} route={route} /> : (<><h1>Session replay</h1><SessionPicker /></>);
}
