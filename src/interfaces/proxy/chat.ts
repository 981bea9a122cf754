import type { FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { MemoryEngine } from '../../engine/engine.js';
import type { App, DoorContext } from '../http/context.js';
import { toErrorReply } from '../http/errors.js';
import { actorOf, type Principal } from '../shared/principal.js';
import { ownUser } from '../shared/scope.js';
import { beforeRequestOf, chatRequestSchema, replyOf, streamedReply, withExtraParts, type ChatRequest } from './messages.js';
import { asUpstreamError, openAiError, postUpstream, UpstreamError } from './upstream.js';

const headers = z.looseObject({
  'x-session-id': z.string().min(1).max(200).optional().describe('The conversation; default: the `user` field'),
  'x-user-id': z.string().min(1).max(200).optional().describe('Whose memories; default: the `user` field'),
});

interface Turn {
  readonly engine: MemoryEngine;
  readonly principal: Principal;
  readonly who: { sessionId: string; userId: string | null };
  readonly inReplyTo: string | null;
}

const recordReply = async (turn: Turn, content: string): Promise<void> => {
  if (turn.inReplyTo === null || content.trim() === '') return;
  await turn.engine.afterLlmResponse(
    { ...turn.who, message: { content }, inReplyTo: turn.inReplyTo },
    { actor: actorOf('proxy', turn.principal) },
  );
};

/** Streams the upstream's SSE through as it arrives, then records the reply it carried. */
async function relayStream(upstream: Response, reply: FastifyReply, turn: Turn, timeoutMs: number): Promise<void> {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const seen = streamedReply();
  const decoder = new TextDecoder();
  try {
    for await (const chunk of upstream.body as unknown as AsyncIterable<Uint8Array>) {
      const text = decoder.decode(chunk, { stream: true });
      seen.feed(text);
      res.write(text);
    }
    await recordReply(turn, seen.text());
  } catch (error) {
    // Headers are gone: the failure travels as an error event, which OpenAI clients raise.
    res.write(`data: ${JSON.stringify(asUpstreamError(error, timeoutMs).body)}\n\n`);
  } finally {
    res.end();
  }
}

/**
 * `/v1/chat/completions`: an OpenAI-compatible memory proxy. Before forwarding, beforeLlmRequest
 * records the user message and recalls; the memories ride along as extra content of this request.
 * After the answer, afterLlmResponse records the reply (and may start a summary).
 */
export function mountProxy(app: App, { engine, config }: DoorContext): void {
  const upstreamConfig = config.server.upstream;
  void app.register(async (plugin) => {
    const scope = plugin.withTypeProvider<ZodTypeProvider>();
    scope.setErrorHandler((error, _req, reply) => {
      if (error instanceof UpstreamError) return reply.code(error.status).send(error.body);
      const { status, body } = toErrorReply(error);
      return reply.code(status).send(openAiError(body.error, status >= 500 ? 'server_error' : 'invalid_request_error', body.code, body.field));
    });
    scope.post('/v1/chat/completions', {
      schema: {
        operationId: 'chatCompletions', tags: ['proxy'], headers, body: chatRequestSchema,
        description: 'OpenAI-compatible chat completions with memory: recall injected into this request, the reply recorded',
      },
    }, async (req, reply) => {
      const body: ChatRequest = req.body;
      const sessionId = req.headers['x-session-id'] ?? body.user;
      const userId = ownUser(req.principal, req.headers['x-user-id'] ?? body.user ?? null, 'x-user-id') ?? null;
      const before = sessionId ? beforeRequestOf(body, { sessionId, userId }) : null;
      const recalled = before ? await engine.beforeLlmRequest(before, { actor: actorOf('proxy', req.principal), userOnly: req.principal.userId !== null }) : null;
      const turn: Turn = { engine, principal: req.principal, who: { sessionId: sessionId ?? '', userId }, inReplyTo: recalled?.messageId ?? null };
      const upstream = await postUpstream(upstreamConfig, withExtraParts(body, recalled?.extraParts ?? []));
      if (!upstream.ok) {
        // The upstream's own error, status and body as they are.
        const text = await upstream.text();
        return reply.code(upstream.status).type(upstream.headers.get('content-type') ?? 'application/json').send(text);
      }
      if (body.stream === true) return relayStream(upstream, reply, turn, upstreamConfig.timeoutMs);
      const answer = (await upstream.json().catch((error: unknown) => {
        throw asUpstreamError(error, upstreamConfig.timeoutMs);
      })) as unknown;
      await recordReply(turn, replyOf(answer));
      return reply.type('application/json').send(JSON.stringify(answer));
    });
  });
}
