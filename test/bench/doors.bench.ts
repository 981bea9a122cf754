/**
 * The doors' cost: REST search (`POST /v1/search` over HTTP on 127.0.0.1) beside the same recall
 * in process, and the chat proxy beside a direct call to the same upstream stand-in (an
 * OpenAI-compatible server on 127.0.0.1; no model runs here).
 *
 *   node dist/test/bench/doors.bench.js [--json] [--doors-memories=N] [--doors-queries=N]
 */
import { loadConfig } from '../../src/engine/config.js';
import { createMemoryEngine } from '../../src/engine/engine.js';
import { startHttpServer } from '../../src/interfaces/http/server.js';
import { mountProxy } from '../../src/interfaces/proxy/chat.js';
import { startChatStandIn } from '../support/chat-standin.js';
import { closeJsonServers } from '../support/json-server.js';
import { memoryInput } from './corpus.js';
import { distinctQueries } from './recall.bench.js';
import { printReport, row, type BenchReport, type BenchRow } from './report.js';
import { alternate, benchDir, intArg, isEntryPoint, progress, quantile } from './support.js';

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then(async (res) => {
    if (!res.ok) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
    return res.json() as Promise<unknown>;
  });

const pair = (name: string, ours: number[], raw: number[], note?: string): BenchRow[] => [
  row(`${name} p50`, quantile(ours, 0.5), quantile(raw, 0.5), 'ms', undefined, { better: 'lower', ...(note ? { note } : {}) }),
  row(`${name} p95`, quantile(ours, 0.95), quantile(raw, 0.95), 'ms', undefined, { better: 'lower' }),
];

export async function runDoorsBench(argv: readonly string[] = process.argv): Promise<BenchReport> {
  const memories = intArg('doors-memories', 10_000, argv);
  const queries = intArg('doors-queries', 200, argv);
  const dir = benchDir('lmem-doors-bench-');
  const upstream = await startChatStandIn();
  const config = loadConfig({ overrides: { dataDir: dir.dir, server: { port: 0, upstream: { baseUrl: upstream.baseUrl } } } });
  const engine = await createMemoryEngine(config, { maintenance: false, llmProvider: null });
  const server = await startHttpServer(engine, config, { mounts: [mountProxy] });
  const rows: BenchRow[] = [];
  try {
    progress(`doors: writing ${memories} memories`);
    for (let i = 0; i < memories; i += 1) await engine.writeMemory(memoryInput(i));
    const all = distinctQueries(2 * (queries + 20));
    let a = 0;
    let b = 0;
    progress(`doors: ${queries} searches over REST and in process`);
    const search = await alternate(
      queries,
      () => post(`${server.address}/v1/search`, { query: all[a++], scope: { mode: 'global' }, topK: 5 }),
      () => undefined,
    );
    const inProcess: number[] = [];
    for (let i = 0; i < queries + 20; i += 1) {
      const t0 = process.hrtime.bigint();
      await engine.recall({ query: all[queries + 20 + b++] as string, scope: { mode: 'global' }, topK: 5 });
      if (i >= 20) inProcess.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    rows.push(...pair(`REST POST /v1/search at ${memories} memories vs engine.recall in process`, search.ours, inProcess,
      'latency, lower is better; distinct queries (no cache hit); ours = fetch to lmem serve on 127.0.0.1 (parse, auth, zod, recall, JSON), raw = the same recall called in process'));

    progress(`doors: ${queries} chat requests through the proxy and direct`);
    let n = 0;
    const chat = (i: number) => ({ model: 'stand-in', messages: [{ role: 'user', content: all[i % all.length] }] });
    const direct: number[] = [];
    const proxied: number[] = [];
    for (let i = 0; i < queries + 20; i += 1) {
      const t0 = process.hrtime.bigint();
      await post(`${upstream.baseUrl}/chat/completions`, chat(i));
      const t1 = process.hrtime.bigint();
      await post(`${server.address}/v1/chat/completions`, chat(i), { 'x-session-id': `bench-${n++ % 50}` });
      const t2 = process.hrtime.bigint();
      if (i >= 20) {
        direct.push(Number(t1 - t0) / 1e6);
        proxied.push(Number(t2 - t1) / 1e6);
      }
    }
    rows.push(...pair('chat proxy request vs direct upstream call', proxied, direct,
      'per request, lower is better; ours = /v1/chat/completions (record the user message, recall, inject, forward, record the reply), raw = the same request straight to the upstream stand-in'));
  } finally {
    await server.close();
    await engine.close();
    await closeJsonServers();
    dir.remove();
  }
  return { title: 'doors', meta: { memories, queries }, rows };
}

if (isEntryPoint(import.meta.url)) {
  runDoorsBench().then((report) => printReport(report), (error: unknown) => {
    process.stderr.write(`bench failed: ${String(error)}\n`);
    process.exitCode = 1;
  });
}
