import { DomainError } from '../../commands/errors.js';
import { ValidationError } from '../../events/errors.js';
import type { Command, Handler, Invocation } from './args.js';
import { opt } from './options.js';
import { table } from './output.js';

const session = (inv: Invocation): string | undefined => (typeof inv.flags.session === 'string' ? inv.flags.session : undefined);

const summarize: Handler = async (engine, inv, out) => {
  const raw = inv.positionals[0];
  if (raw !== undefined && !/^[1-9]\d*$/.test(raw)) throw new ValidationError('n', `must be a positive integer, got "${raw}"`);
  const sessionId = session(inv);
  const results = await engine.conversation.summarize({
    ...(sessionId ? { sessionId } : {}),
    ...(raw ? { maxSegments: Number(raw) } : {}),
  });
  out.print(results, () =>
    results.length === 0
      ? 'nothing to summarize (no backlog, a summary already running, or no summarizer configured)'
      : table([['task', 'session', 'outcome', 'error'], ...results.map((r) => [r.taskId, r.sessionId, r.state, r.error ?? null])]),
  );
};

const reset: Handler = async (engine, inv, out) => {
  const sessionId = session(inv);
  if (!sessionId) throw new ValidationError('session', 'is required');
  const reason = typeof inv.flags.reason === 'string' ? inv.flags.reason : 'reset from the command line';
  await engine.conversation.reset(sessionId, { reason, force: inv.flags.force === true }).catch((error: unknown) => {
    // The engine's rule, worded with this door's flag.
    if (error instanceof DomainError && error.code === 'unknown_session') {
      throw new ValidationError('session', `no session "${sessionId}" has recorded a message; --force records the reset anyway`);
    }
    throw error;
  });
  out.print({ sessionId, reset: true }, () => `reset session ${sessionId}: its messages and the memories summarized from them are gone`);
};

const cleanup: Handler = async (engine, inv, out) => {
  const mode = inv.positionals[0] ?? 'preview';
  if (mode !== 'preview' && mode !== 'exec') throw new ValidationError('mode', `must be preview or exec, got "${mode}"`);
  const result = await engine.conversation.cleanup(mode);
  out.print(result, () =>
    result.messages.length === 0
      ? 'no stored message carries an injection block'
      : `${mode === 'exec' ? 'cleaned' : 'would clean'} ${result.messages.length} message(s)\n` +
        table([['session', 'index', 'message', 'cleaned text'], ...result.messages.map((m) => [m.sessionId, m.index, m.messageId, m.cleaned.slice(0, 60)])]),
  );
};

/** The conversation commands of `lmem`. */
export const conversationCommands: Readonly<Record<string, Command>> = {
  summarize: { run: summarize, summary: 'summarize the backlog now, at most n segments per session', args: ['[n]'], options: [opt.session] },
  reset: { run: reset, summary: 'forget a session and the memories summarized from it', options: [{ ...opt.session, description: 'the session (required)' }, opt.reason, { flags: '--force', description: 'reset a session that recorded no message' }] },
  cleanup: { run: cleanup, summary: 'list (preview) or remove (exec) injection blocks older modes left in stored messages', args: ['[mode]'] },
};
