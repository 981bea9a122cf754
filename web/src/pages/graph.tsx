import { useEffect, useRef, useState } from 'preact/hooks';
import { get } from '../api';
import { requestMark, startLayout, type GraphAnswer } from '../graph/stage';
import { colourOf, createRenderer, type Renderer } from '../graph/renderer';
import { href, navigate, type Route } from '../router';
import { useLoad } from '../ui/async';
import { ErrorNote, Field, Loading, Section } from '../ui/parts';

const panStep = 60;

/** Arrow keys pan, + and - zoom, 0 fits the whole graph. */
function onKey(renderer: Renderer, e: KeyboardEvent): void {
  const v = renderer.getView();
  const moves: Record<string, () => void> = {
    ArrowLeft: () => renderer.setView({ ...v, x: v.x + panStep }),
    ArrowRight: () => renderer.setView({ ...v, x: v.x - panStep }),
    ArrowUp: () => renderer.setView({ ...v, y: v.y + panStep }),
    ArrowDown: () => renderer.setView({ ...v, y: v.y - panStep }),
    '+': () => renderer.setView({ x: v.x * 1.25, y: v.y * 1.25, scale: v.scale * 1.25 }),
    '=': () => renderer.setView({ x: v.x * 1.25, y: v.y * 1.25, scale: v.scale * 1.25 }),
    '-': () => renderer.setView({ x: v.x / 1.25, y: v.y / 1.25, scale: v.scale / 1.25 }),
    '0': () => renderer.fit(),
  };
  const move = moves[e.key];
  if (move) (e.preventDefault(), move());
}

function Stage({ graph, onSelect, highlight, selected }: { graph: GraphAnswer; onSelect: (i: number | null) => void; highlight: number | null; selected: number | null }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const renderer = useRef<Renderer | null>(null);
  const [state, setState] = useState({ tick: 0, done: false, drawn: 0, firstFrameMs: 0 });
  useEffect(() => {
    if (!canvas.current) return;
    const r = (renderer.current = createRenderer(canvas.current));
    const stop = startLayout(graph, r, setState);
    const drag = { on: false, x: 0, y: 0, moved: false };
    const el = canvas.current;
    const down = (e: PointerEvent) => Object.assign(drag, { on: true, x: e.clientX, y: e.clientY, moved: false });
    const move = (e: PointerEvent) => {
      if (!drag.on) return;
      const v = r.getView();
      if (Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) > 2) drag.moved = true;
      r.setView({ ...v, x: v.x + e.clientX - drag.x, y: v.y + e.clientY - drag.y });
      Object.assign(drag, { x: e.clientX, y: e.clientY });
    };
    const up = (e: PointerEvent) => {
      drag.on = false;
      if (drag.moved) return;
      const box = el.getBoundingClientRect();
      onSelect(r.pick(e.clientX - box.left, e.clientY - box.top));
    };
    const wheel = (e: WheelEvent) => {
      e.preventDefault();
      const v = r.getView();
      const k = e.deltaY < 0 ? 1.15 : 1 / 1.15;
      r.setView({ x: v.x * k, y: v.y * k, scale: v.scale * k });
    };
    const key = (e: KeyboardEvent) => onKey(r, e);
    el.addEventListener('pointerdown', down);
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
    el.addEventListener('wheel', wheel, { passive: false });
    el.addEventListener('keydown', key);
    return () => {
      stop();
      r.destroy();
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
    };
  }, [graph]);
  useEffect(() => renderer.current?.highlight(highlight), [highlight]);
  useEffect(() => renderer.current?.select(selected), [selected]);
  return (
    <>
      <div class="graph-stage" data-testid="graph-stage" data-drawn-nodes={state.drawn} data-first-frame-ms={Math.round(state.firstFrameMs)} data-layout-done={String(state.done)}>
        <canvas ref={canvas} tabIndex={0} role="img"
          aria-label={`Graph of ${graph.nodes.length} nodes and ${graph.edges.length} edges in ${graph.communities.length} communities. Arrow keys pan, plus and minus zoom, 0 fits.`} />
      </div>
      <p class="muted" aria-live="polite">
        {state.drawn} nodes drawn{state.firstFrameMs ? `, first full frame after ${Math.round(state.firstFrameMs)} ms` : ''} · layout {state.done ? 'settled' : `tick ${state.tick}`}
      </p>
    </>
  );
}

/** The graph projection with Louvain communities (computed by the server) and a force layout in a Web Worker. */
export function GraphPage({ route }: { route: Route }) {
  const q = route.query;
  const [sessionId, setSession] = useState(q.get('sessionId') ?? '');
  const [personaId, setPersona] = useState(q.get('personaId') ?? '');
  const [limit, setLimit] = useState(q.get('limit') ?? '2000');
  const applied = { sessionId: q.get('sessionId') ?? '', personaId: q.get('personaId') ?? '', limit: q.get('limit') ?? '2000' };
  const graph = useLoad(() => (performance.mark(requestMark), get<GraphAnswer>('/v1/graph', applied)), [JSON.stringify(applied)]);
  const [highlight, setHighlight] = useState<number | null>(null);
  const [selected, setSelected] = useState<number | null>(null);
  const [find, setFind] = useState('');
  const g = graph.data;
  const node = g && selected !== null ? g.nodes[selected] : undefined;
  const search = (e: Event) => {
    e.preventDefault();
    const needle = find.trim().toLowerCase();
    const i = g?.nodes.findIndex((n) => n.value.toLowerCase().includes(needle)) ?? -1;
    setSelected(i >= 0 ? i : null);
  };
  return (
    <>
      <h1>Graph</h1>
      <form class="filters" aria-label="Graph filter" onSubmit={(e) => (e.preventDefault(), setSelected(null), navigate(href(['graph'], { sessionId, personaId, limit }), true))}>
        <Field label="Session" value={sessionId} onValue={setSession} />
        <Field label="Persona" value={personaId} onValue={setPersona} />
        <Field label="Most connected nodes" type="number" min="1" max="20000" value={limit} onValue={setLimit} />
        <button type="submit" class="primary">Show</button>
      </form>
      <ErrorNote error={graph.error} />
      <Loading when={graph.loading && !g} />
      {g ? (
        <>
          <p class="muted" data-testid="graph-summary">
            {g.nodes.length} of {g.totalNodes} nodes, {g.edges.length} edges, {g.communities.length} communities
            (modularity {g.modularity.toFixed(3)}, grouped on the server in {g.computeMs} ms)
          </p>
          <Stage graph={g} onSelect={setSelected} highlight={highlight} selected={selected} />
          <div class="grid2">
            <Section title="Communities">
              <ul class="legend">
                {g.communities.slice(0, 40).map((c) => (
                  <li key={c.id}>
                    <button type="button" aria-pressed={highlight === c.id} onClick={() => setHighlight(highlight === c.id ? null : c.id)}>
                      <span class="swatch" style={{ background: colourOf(c.id, g.isolates) }} />
                      {c.isolates ? 'no ties' : c.label} ({c.size})
                    </button>
                  </li>
                ))}
              </ul>
              {g.communities.length > 40 ? <p class="muted">and {g.communities.length - 40} smaller ones</p> : null}
            </Section>
            <Section title="Node">
              <form class="filters" onSubmit={search} aria-label="Node search">
                <Field label="Find a node" value={find} onValue={setFind} />
                <button type="submit">Find</button>
              </form>
              {node ? (
                <dl class="facts" data-testid="node-details">
                  <dt>Value</dt><dd>{node.value}</dd><dt>Type</dt><dd>{node.type}</dd><dt>Key</dt><dd>{node.key}</dd>
                  <dt>Community</dt><dd>{node.community}</dd><dt>Tie weight</dt><dd>{node.degree.toFixed(2)}</dd>
                  <dt>Memories</dt><dd><a href={href(['memories'], { text: node.value })}>that mention it</a></dd>
                </dl>
              ) : <p class="muted">Click a node, or find one by name.</p>}
            </Section>
          </div>
        </>
      ) : null}
    </>
  );
}
