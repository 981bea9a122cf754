import { z } from 'zod';
import { lazy } from '../../events/lazy.js';
import type { SummaryMessage, SummaryRequest } from './provider.js';

/**
 * `identity_aliases`: platform sender id -> the one name of the person behind it, so that the
 * same person writing from two accounts (or two platforms) is one participant.
 */
export const identityAliasesSchema = lazy(() => z.record(z.string().trim().min(1).max(500), z.string().trim().min(1).max(500)));

export type IdentityAliases = z.output<ReturnType<typeof identityAliasesSchema>>;

const hasText = (value: string | null): value is string => value !== null && value.trim().length > 0;

/**
 * The person behind a message: the alias of its sender id, else its sender name, else its sender
 * id; null when the message names nobody.
 */
export function resolveSender(message: Pick<SummaryMessage, 'senderId' | 'senderName'>, aliases: IdentityAliases = {}): string | null {
  const { senderId, senderName } = message;
  if (hasText(senderId) && Object.hasOwn(aliases, senderId)) return aliases[senderId] ?? null;
  if (hasText(senderName)) return senderName.trim();
  return hasText(senderId) ? senderId.trim() : null;
}

/**
 * Who said a message, as a summary should write it: the person's name; for a nameless message the
 * assistant, "the user" in a private chat, "someone" in a group.
 */
export function speakerLabel(message: SummaryMessage, chatType: SummaryRequest['chatType'], aliases: IdentityAliases = {}): string {
  if (message.role === 'assistant') return resolveSender(message, aliases) ?? 'the assistant';
  const person = resolveSender(message, aliases);
  if (person !== null) return person;
  return chatType === 'private' ? 'the user' : 'someone';
}

/** The distinct people who spoke (not the assistant, system or tools), in order of first message. */
export function participantsOf(messages: readonly SummaryMessage[], aliases: IdentityAliases = {}): string[] {
  const seen = new Set<string>();
  const names: string[] = [];
  for (const message of messages) {
    if (message.role !== 'user') continue;
    const name = resolveSender(message, aliases);
    if (name === null || seen.has(name.toLowerCase())) continue;
    seen.add(name.toLowerCase());
    names.push(name);
  }
  return names;
}
