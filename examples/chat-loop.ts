/**
 * A minimal agent loop with LivingMemory: before each LLM call, beforeLlmRequest records the user
 * message and recalls; its extraParts go into this call only. After the answer, afterLlmResponse
 * records the reply (and summarizes every few rounds in the background).
 *
 *   CHAT_BASE_URL=http://127.0.0.1:8000/v1 LIVINGMEMORY_DATA_DIR=./data node dist/examples/chat-loop.js "hi" "what do I like?"
 */
import { createMemoryEngine, loadConfig, type MemoryEngine } from 'livingmemory';

type Message = { role: 'system' | 'user' | 'assistant'; content: string | { type: 'text'; text: string }[] };

async function complete(baseUrl: string, messages: Message[]): Promise<string> {
  const res = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${process.env.CHAT_API_KEY ?? 'none'}` },
    body: JSON.stringify({ model: process.env.CHAT_MODEL ?? 'any', messages }),
  });
  if (!res.ok) throw new Error(`LLM answered ${res.status}: ${await res.text()}`);
  const body = (await res.json()) as { choices: { message: { content: string } }[] };
  return body.choices[0]?.message.content ?? '';
}

/** One conversation: each user turn through the two hooks around the LLM call. */
export async function chatLoop(engine: MemoryEngine, baseUrl: string, sessionId: string, userId: string, turns: readonly string[]) {
  const history: { role: 'user' | 'assistant'; content: string }[] = [];
  for (const text of turns) {
    const before = await engine.beforeLlmRequest({ sessionId, userId, message: { content: text }, history });
    const user: Message = { role: 'user', content: [{ type: 'text', text }, ...before.extraParts] };
    const reply = await complete(baseUrl, [{ role: 'system', content: 'You are a helpful assistant.' }, ...history, user]);
    await engine.afterLlmResponse({ sessionId, userId, message: { content: reply }, ...(before.messageId ? { inReplyTo: before.messageId } : {}) });
    history.push({ role: 'user', content: text }, { role: 'assistant', content: reply });
    console.log(JSON.stringify({ user: text, recalled: before.memories.map((m) => m.text), reply }));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const engine = await createMemoryEngine(loadConfig({ env: process.env }), { maintenance: false });
  try {
    const notes = process.env.CHAT_REMEMBER;
    if (notes) await engine.writeMemory({ text: notes, userId: process.env.CHAT_USER ?? 'me' });
    await chatLoop(engine, process.env.CHAT_BASE_URL ?? 'http://127.0.0.1:8787/v1', process.env.CHAT_SESSION ?? 'example', process.env.CHAT_USER ?? 'me', process.argv.slice(2));
  } finally {
    await engine.close();
  }
}
