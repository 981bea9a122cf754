import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChatStandIn } from '../support/chat-standin.js';
import { closeJsonServers } from '../support/json-server.js';
import { startDoors, tokenConfig, tokens, waitForJob, type Doors } from '../support/doors.js';
import { fuzzTally } from '../support/faults/fuzz.js';
import { faultSeed } from '../support/faults/kill.js';

// The fault suite's REST part, as the CLI fuzz is its command-line part: random requests to every
// operation the OpenAPI document lists, on a real server on 127.0.0.1 over a real store. No request
// may answer 5xx; a 4xx answers the one error body (a sentence, the field, a code) and writes
// nothing to the log. LMEM_FUZZ_RUNS sets the size (CI: 100).
const runs = Number(process.env.LMEM_FUZZ_RUNS ?? 100);

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly id: string;
  readonly query: readonly string[];
  readonly body: boolean;
}

let doors: Doors;
let operations: Operation[] = [];
const ids: string[] = [];

beforeAll(async () => {
  // With tokens: the operator's, a user's (scoped to u-alice: 403s), none (401s); and the chat stand-in upstream.
  const upstream = await startChatStandIn();
  doors = await startDoors({ tokens: tokenConfig, upstream: { baseUrl: upstream.baseUrl } });
  for (const [text, userId] of [['Kim keeps bees on the library roof', 'u-alice'], ['我每天早上喝一杯咖啡', 'u-bob']] as const) {
    ids.push((await doors.call('POST', '/v1/memories', { token: tokens.admin, body: { text, userId, sessionId: 's1' } })).body.memoryId);
  }
  const doc = (await doors.call('GET', '/openapi.json', { token: tokens.admin })).body as { paths: Record<string, Record<string, any>> };
  operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      id: op.operationId as string,
      query: ((op.parameters ?? []) as { in: string; name: string }[]).filter((p) => p.in === 'query').map((p) => p.name),
      body: op.requestBody !== undefined,
    })),
  );
});
afterAll(async () => {
  await doors?.close();
  await closeJsonServers();
});

const text = fc.oneof(
  fc.constantFrom('', ' ', '0', '-1', '1e309', 'NaN', 'null', 'true', '..', '../../etc/passwd', '%00', 's1', 'u1', 'documents', 'global', 'user', 'preview'),
  fc.string({ unit: 'grapheme', maxLength: 24 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
const idLike = fc.oneof(fc.constantFrom(...['a', 'b'].map((_, i) => () => ids[i] as string)).map((f) => f()), text);
// Bodies: random JSON, or an object of plausible field names with random values (reaches the engine more often).
const fieldNames = ['text', 'userId', 'sessionId', 'personaId', 'query', 'scope', 'mode', 'topK', 'importance', 'topics', 'reason', 'kind', 'id', 'user',
  'content', 'source', 'format', 'at', 'target', 'path', 'force', 'message', 'messages', 'model', 'publicKey', 'explain', 'changes', 'inReplyTo'];
const value: fc.Arbitrary<unknown> = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(text, { maxLength: 3 }), fc.dictionary(fc.constantFrom('mode', 'sessionId', 'content', 'role'), text, { maxKeys: 2 }));
const body = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(fc.constantFrom(...fieldNames), value, { maxKeys: 5 }));

/** The REST error body; the chat proxy answers OpenAI's (`error.message`, `error.param`, `error.code`), as its clients expect. */
function errorBody(op: Operation, body: any): boolean {
  if (op.id === 'chatCompletions') return typeof body?.error?.message === 'string' && typeof body?.error?.code === 'string' && 'param' in body.error;
  return typeof body?.error === 'string' && typeof body?.code === 'string' && 'field' in body;
}

describe('REST API request fuzz (fault suite)', () => {
  it(`answers ${runs} random requests with 2xx or a 4xx error body; a 4xx writes nothing; never a 5xx`, async () => {
    const tally = fuzzTally('REST request fuzz', 'statuses');
    try {
      await fc.assert(
        fc.asyncProperty(fc.nat(), fc.array(idLike, { minLength: 2, maxLength: 2 }), fc.dictionary(fc.string({ maxLength: 8 }), text, { maxKeys: 3 }), fc.option(body), fc.boolean(), fc.constantFrom(tokens.admin, tokens.alice, undefined), async (pick, params, extra, sent, ownQuery, token) => {
          const op = operations[pick % operations.length] as Operation;
          let n = 0;
          const path = op.path.replace(/\{(\w+)\}/g, () => encodeURIComponent(params[n++] ?? ''));
          const query = new URLSearchParams(ownQuery ? Object.fromEntries(op.query.map((q, i) => [q, String(params[i % 2] ?? '')])) : extra).toString();
          const url = `${path}${query ? `?${query}` : ''}`;
          // Access statistics are appended on a timer: flushed first, so the head moves only for this request.
          await doors.engine.flushAccess();
          const before = await doors.engine.log.headPosition();
          const res = await doors.call(op.method, url, { ...(op.body && sent !== null ? { body: sent } : {}), ...(token ? { token } : {}) });
          tally.count(res.status);
          const request = `${op.method} ${url} ${JSON.stringify(sent)} as ${token === tokens.admin ? 'operator' : token ? 'alice' : 'nobody'}`;
          if (res.status === 202 && typeof res.body?.jobId === 'string') await waitForJob(doors, res.body.jobId, tokens.admin);
          const isError = res.status >= 400 && res.status < 500;
          const problem =
            res.status >= 500 ? `${res.status}: ${res.text.slice(0, 200)}`
            : isError && !errorBody(op, res.body) ? `${res.status} without the error body: ${res.text.slice(0, 200)}`
            : isError && (await doors.engine.log.headPosition()) !== before ? `${res.status} but the log head moved`
            : null;
          if (problem) tally.find(request, problem, res.status >= 500);
          return problem === null;
        }),
        { numRuns: runs, endOnFailure: true, seed: faultSeed },
      );
    } finally {
      tally.record();
    }
    expect(tally.findings).toEqual([]);
  }, runs * 5_000);
});
