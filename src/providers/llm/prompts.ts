import { participantsOf, speakerLabel, type IdentityAliases } from './identity.js';
import type { SummaryRequest } from './provider.js';

/** Changes whenever a prompt's wording changes; part of the provider's fingerprint. */
export const promptVersion = 'summary-v1';

const contract = `Answer with one JSON object and nothing else, with exactly these keys:
- "summary": a few sentences (at most about 120 words), in the language of the conversation.
- "topics": up to 6 short topics.
- "keyFacts": up to 12 facts worth remembering for a long time (plans, dates, places, names, jobs, pets, preferences, changes in someone's life), each one self-contained sentence that names the person it is about.
- "participants": the names of the people who wrote, as written in the conversation.
- "sentiment": "positive", "negative", "neutral" or "mixed".
- "importance": a number from 0 to 1, how much of this is worth remembering.
Keep numbers, dates and names exactly as written. Do not add anything the conversation does not say.`;

/** The system prompt for a group chat: several named people, each kept apart by name. */
export const groupSystemPrompt = `You turn a group chat into long-term memory for an assistant. Several people write; each line starts with the time and the name of the person who wrote it.
Always call people by their names as written. Never write "user", "the user" or "someone" for a person who has a name, and never mix up who said what.
${contract}`;

/** The system prompt for a private chat: one user and the assistant. */
export const privateSystemPrompt = `You turn a private chat between one user and the assistant into long-term memory for the assistant. Each line starts with the time and who wrote it.
Call the user by name when the conversation gives one, otherwise "the user". What the user says about themselves matters most; what the assistant said matters only when the user relied on it.
"participants" lists the user's name when it is known, otherwise it is an empty list.
${contract}`;

/** `2026-03-01 10:04` (UTC) from an ISO time; the text as given when it does not parse. */
function minute(at: string): string {
  const ms = Date.parse(at);
  return Number.isNaN(ms) ? at : new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}

/**
 * The user turn: chat type, the people, then one line per user or assistant message
 * (`[time] Name: text`). When the lines pass `maxChars`, the oldest are left out and counted.
 */
export function renderConversation(request: SummaryRequest, aliases: IdentityAliases, maxChars: number): string {
  const people = participantsOf(request.messages, aliases);
  const head = [`Chat type: ${request.chatType}.`, people.length > 0 ? `People: ${people.join(', ')}.` : 'People: not named.'];
  const lines = request.messages
    .filter((m) => (m.role === 'user' || m.role === 'assistant') && m.content.trim().length > 0)
    .map((m) => `[${minute(m.at)}] ${speakerLabel(m, request.chatType, aliases)}: ${m.content.trim().replace(/\s*\n\s*/g, ' / ')}`);
  // The newest lines are kept: `first` walks back while they fit.
  let first = lines.length;
  let size = 0;
  while (first > 0 && size + (lines[first - 1]?.length ?? 0) + 1 <= maxChars) {
    size += (lines[first - 1]?.length ?? 0) + 1;
    first -= 1;
  }
  // A newest message longer than the budget on its own is cut rather than lost.
  const body = first === lines.length && first > 0 ? [(lines[first - 1] ?? '').slice(0, maxChars)] : lines.slice(first);
  const left = lines.length - body.length;
  if (left > 0) head.push(`(${left} earlier messages left out)`);
  return [...head, 'Conversation:', ...body].join('\n');
}
