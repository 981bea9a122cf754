import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDoors, tokenConfig, tokens, type Doors } from '../support/doors.js';
import { fuzzTally } from '../support/faults/fuzz.js';
import { faultSeed } from '../support/faults/kill.js';

// The fault suite's MCP part: a model calls tools with whatever arguments it makes up. Random
// arguments to every tool over streamable HTTP (a user's token) and random resource URIs: each
// call answers a result, a tool error (isError, with a message) or the protocol's invalid-params
// error (a memory that is not there too); never an internal error; an error writes nothing to the
// log. LMEM_FUZZ_RUNS sets the size.
const runs = Number(process.env.LMEM_FUZZ_RUNS ?? 100);

let doors: Doors;
let client: Client;
let tools: string[] = [];
const ids: string[] = [];

beforeAll(async () => {
  doors = await startDoors({ tokens: tokenConfig, mcp: { budget: { maxCalls: 1_000, windowMs: 1_000, maxChars: 12_000 } } });
  client = new Client({ name: 'fuzz', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${doors.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens.alice}` } } }));
  tools = (await client.listTools()).tools.map((t) => t.name);
  for (const text of ['Alice parks her bike behind the bakery', '我每天早上喝一杯咖啡']) {
    const result = (await client.callTool({ name: 'memorize', arguments: { text } })) as { content: { text: string }[] };
    ids.push(JSON.parse(result.content[0]?.text ?? '{}').memoryId);
  }
});
afterAll(async () => {
  await client?.close();
  await doors?.close();
});

const text = fc.oneof(
  fc.constantFrom('', ' ', '0', '-1', 'NaN', 'null', 'global', 'session', 'user', 'bike', 's1', 'u-bob'),
  fc.string({ unit: 'grapheme', maxLength: 24 }),
  fc.string({ unit: 'binary', maxLength: 8 }),
);
const names = ['text', 'query', 'scope', 'mode', 'sessionId', 'userId', 'personaId', 'memoryId', 'changes', 'importance', 'topics', 'reason', 'topK', 'explain', 'at'];
const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.constantFrom(...[0, 1].map((i) => () => ids[i])).map((f) => f()),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...names), tie('v'), { maxKeys: 3 }),
  ),
})).v;
const anId = fc.constantFrom(0, 1).map((i) => ids[i] as string);
// A valid call of each tool, then maybe one field replaced by anything: reaches the engine, not only the schema.
const valid: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  memorize: fc.record({ text: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), topics: fc.array(fc.string({ minLength: 1, maxLength: 8 }), { maxLength: 2 }) }),
  recall: fc.record({ query: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }), scope: fc.constant({ mode: 'global' }) }),
  update_memory: fc.record({ memoryId: anId, changes: fc.record({ importance: fc.double({ min: 0, max: 1, noNaN: true }) }) }),
  memory_history: fc.record({ memoryId: anId }),
  forget_memory: fc.record({ memoryId: anId, reason: fc.string({ minLength: 1, maxLength: 10 }) }),
};
const plausible = (tool: string) =>
  fc.tuple(valid[tool] ?? fc.constant({}), fc.option(fc.tuple(fc.constantFrom(...names), value))).map(([base, change]) => (change ? { ...base, [change[0]]: change[1] } : base));
const random = fc.oneof(fc.dictionary(fc.constantFrom(...names), value, { maxKeys: 5 }), fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }));

/** MCP's invalid-params code: the SDK's answer to arguments its input schema refuses. */
const invalidParams = -32602;

describe('MCP tool-call fuzz (fault suite)', () => {
  it(`answers ${runs} random tool calls and resource reads with a result or an error naming what is wrong; errors write nothing`, async () => {
    const tally = fuzzTally('MCP tool-call fuzz', 'outcomes');
    const count = tally.count;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...tools).chain((tool) => fc.tuple(fc.constant(tool), fc.oneof(plausible(tool), random))),
          fc.boolean(),
          fc.oneof(anId, text),
          fc.boolean(),
          async ([tool, sent], resource, id, history) => {
          await doors.engine.flushAccess();
          const before = await doors.engine.log.headPosition();
          const call = resource ? `read memory://${id}` : `${tool} ${JSON.stringify(sent)}`;
          let problem: string | null = null;
          let failed = false;
          try {
            if (resource) {
              await client.readResource({ uri: `memory://${encodeURIComponent(id)}${history ? '/history' : ''}` });
              count('read');
            } else {
              const result = (await client.callTool({ name: tool, arguments: sent as Record<string, unknown> })) as { content: { text?: string }[]; isError?: boolean };
              failed = result.isError === true;
              count(failed ? 'tool error' : 'result');
              if (failed && !(result.content[0]?.text ?? '').trim()) problem = 'a tool error without a message';
            }
          } catch (error) {
            failed = true;
            const code = (error as { code?: unknown }).code;
            count(`error ${String(code)}`);
            // Arguments the schema refuses, or a resource that is not there: the protocol's invalid params.
            if (code !== invalidParams) {
              problem = `error ${String(code)}: ${String((error as Error).message).slice(0, 200)}`;
            }
          }
          if (!problem && failed && (await doors.engine.log.headPosition()) !== before) problem = 'an error, but the log head moved';
          if (problem) tally.find(call, problem, problem.startsWith('error'));
          return problem === null;
          },
        ),
        { numRuns: runs, endOnFailure: true, seed: faultSeed },
      );
    } finally {
      tally.record();
    }
    expect(tally.findings).toEqual([]);
  }, runs * 5_000);
});
