import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { commandSchemasFor } from '../../commands/memory/commands.js';
import { defaultLimits, type Limits } from '../../events/bounds.js';
import { idSchema } from '../../events/metadata.js';
import type { MemoryEngine } from '../../engine/engine.js';
import { recallInputSchema } from '../../engine/recall.js';
import { toWire } from '../http/wire.js';
import { actorOf, type Principal } from '../shared/principal.js';
import { AccessError, canSee, ownUser, scopedRecall } from '../shared/scope.js';
import { createBudget, within, type Budget } from './budget.js';

const idInput = z.object({ memoryId: idSchema }).strict();

const toJson = (value: unknown): string => JSON.stringify(toWire(value), null, 2);

type ToolResult = { content: { type: 'text'; text: string }[]; isError?: boolean };

/**
 * One MCP server per session (stdio connection or HTTP session), acting as `principal`: the same
 * engine calls, scopes and actor as the REST API, each tool call within the session's budget.
 */
export function createMcpServer(engine: MemoryEngine, principal: Principal, budget: Budget, limits: Limits = defaultLimits): McpServer {
  // Input schemas at the configured limits (ADR 23), as the engine checks them.
  const commands = commandSchemasFor(limits);
  const memorizeInput = commands.WriteMemory.extend({ memoryId: idSchema.optional() });
  const updateInput = commands.UpdateMemory;
  const server = new McpServer({ name: 'livingmemory', version: '1' });
  const spend = createBudget(budget);
  const ctx = { actor: actorOf('mcp', principal) };
  const own = (memoryId: string) => {
    const doc = engine.documents.get(memoryId);
    if (!canSee(principal, doc) || !doc) throw new AccessError('memoryId', `no memory ${memoryId}`);
    return doc;
  };
  // Every tool answers JSON text; any refusal (bad input, scope, budget) is a tool error the agent reads.
  const run = async (work: () => Promise<unknown>): Promise<ToolResult> => {
    try {
      const ms = spend.take();
      return { content: [{ type: 'text', text: spend.cut(toJson(await within(work(), ms))) }] };
    } catch (error) {
      return { content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }], isError: true };
    }
  };

  server.registerTool('recall', {
    description: 'Recall long-term memories relevant to a query (keyword + vector + graph, fused, weighted by importance and recency).',
    inputSchema: recallInputSchema(),
  }, (input) => run(async () => {
    const answer = await engine.recall(scopedRecall(principal, input));
    return { memories: answer.memories, injection: answer.injection.text };
  }));

  server.registerTool('memorize', {
    description: 'Write a new long-term memory (a fact, a preference, a decision), with optional importance 0-1 and topics.',
    inputSchema: memorizeInput,
  }, (input) => run(() => engine.writeMemory({ ...input, userId: ownUser(principal, input.userId) ?? null }, ctx)));

  server.registerTool('update_memory', {
    description: 'Change a memory: its text, importance, topics, key facts, participants or sentiment.',
    inputSchema: updateInput,
  }, ({ memoryId, changes }) => run(async () => (own(memoryId), engine.updateMemory(memoryId, changes, ctx))));

  server.registerTool('forget_memory', {
    description: 'Forget a memory: it is no longer recalled; the log keeps that it was forgotten, and why.',
    inputSchema: commands.ForgetMemory,
  }, ({ memoryId, reason }) => run(async () => (own(memoryId), engine.forgetMemory(memoryId, reason, ctx))));

  server.registerTool('memory_history', {
    description: 'Every event that created, changed, recalled, archived or forgot a memory: when, who, and why.',
    inputSchema: idInput,
  }, ({ memoryId }) => run(async () => (own(memoryId), engine.history(memoryId))));

  // A memory that is not there (or not this token's) is invalid params, as the SDK answers a URI no
  // template matches; thrown as it was, it reached the client as an internal error.
  const read = (uri: URL, body: () => Promise<unknown>) =>
    body().then(
      (value) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: toJson(value) }] }),
      (error: unknown) => {
        throw error instanceof AccessError ? new McpError(ErrorCode.InvalidParams, error.message) : error;
      },
    );
  const variable = (v: string | string[] | undefined): string => (Array.isArray(v) ? (v[0] ?? '') : (v ?? ''));

  server.registerResource('memory', new ResourceTemplate('memory://{memoryId}', { list: undefined }), {
    description: 'One memory: its text, scope, importance, status and dates', mimeType: 'application/json',
  }, (uri, vars) => read(uri, async () => own(variable(vars.memoryId))));

  server.registerResource('memory-history', new ResourceTemplate('memory://{memoryId}/history', { list: undefined }), {
    description: 'The audit trail of one memory', mimeType: 'application/json',
  }, (uri, vars) => read(uri, async () => {
    const id = variable(vars.memoryId);
    own(id);
    return engine.history(id);
  }));
  return server;
}
