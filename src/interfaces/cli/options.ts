import { ValidationError } from '../../events/errors.js';
import { naturalNumber, oneOf, parseDecimal, parsePosition, positiveInteger, str, type Invocation, type OptionSpec } from './args.js';

/** Flags several commands share, declared once so each command lists exactly the ones it takes. */
export const opt = {
  session: { flags: '--session <id>', description: 'session id' },
  persona: { flags: '--persona <id>', description: 'persona id' },
  user: { flags: '--user <id>', description: 'user id' },
  reason: { flags: '--reason <text>', description: 'why (recorded in the event)' },
  importance: { flags: '--importance <n>', description: 'importance from 0 to 1', value: parseDecimal },
  topic: { flags: '--topic <label>', description: 'a topic (repeatable)', multiple: true },
  topK: { flags: '--top-k <n>', description: 'how many memories to return', value: positiveInteger },
  scope: {
    flags: '--scope <mode>',
    description: 'legacy, session, user or global (default: the configured conversation.scopeMode)',
    value: oneOf('legacy', 'session', 'user', 'global'),
  },
  explain: { flags: '--explain', description: 'show every score of each hit' },
  preview: { flags: '--preview', description: 'show what would happen; write nothing' },
  out: { flags: '--out <path>', description: 'where to write (never inside the data dir)' },
  force: { flags: '--force', description: 'replace an existing output file' },
  from: { flags: '--from <position>', description: 'first log position', value: parsePosition },
  tail: { flags: '--tail <n>', description: 'how many of the last events (default 20)', value: positiveInteger },
  limit: { flags: '--limit <n>', description: 'at most this many (default 50)', value: naturalNumber },
} satisfies Record<string, OptionSpec>;

/** The filters of a subject: a session, a persona, a user. */
export const subjectOptions: readonly OptionSpec[] = [opt.session, opt.persona, opt.user];

/** The flags every command takes, besides its own. */
export const globalOptions: readonly OptionSpec[] = [
  { flags: '--data-dir <dir>', description: 'the store directory (default ./data or LIVINGMEMORY_DATA_DIR)' },
  { flags: '--config <file>', description: 'a JSON configuration file (or LIVINGMEMORY_CONFIG)' },
  { flags: '--json', description: 'print exactly one JSON object on stdout (errors included)' },
];

/**
 * The recall scope of `search` and `recall --at`: `--scope`, else the configured
 * conversation.scopeMode (what the hooks use), never silently `global`. A session or user scope
 * without its id would see nothing, so it is refused.
 */
export function recallScope(inv: Pick<Invocation, 'flags' | 'config'>) {
  const mode = (str(inv, 'scope') ?? inv.config?.conversation.scopeMode ?? 'legacy') as 'legacy' | 'session' | 'user' | 'global';
  const scope = { mode, sessionId: str(inv, 'session') ?? null, personaId: str(inv, 'persona') ?? null, userId: str(inv, 'user') ?? null };
  if (mode === 'session' && scope.sessionId === null) throw new ValidationError('session', 'is required by the session scope (give --session, or another --scope)');
  if (mode === 'user' && scope.userId === null) throw new ValidationError('user', 'is required by the user scope (give --user, or another --scope)');
  return scope;
}
