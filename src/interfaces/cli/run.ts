import { ConcurrencyError, CorruptEventError, ValidationError } from '../../events/errors.js';
import { DomainError } from '../../commands/errors.js';
import type { ConfigError } from '../../engine/config.js';
import { commands } from './commands.js';
import { checkDataDir } from './data-dir.js';
import { exitCodes } from './exit-codes.js';
import { createOutput, printable, toJson } from './output.js';
import { parseCommandLine, UsageError } from './program.js';

interface Described {
  readonly code: number;
  readonly kind: string;
  readonly field?: string;
  readonly message: string;
}

/** Errors the user can act on get one clear line and exit 2; anything else exits 1, still in one line. */
function describeError(error: unknown): Described {
  if (error instanceof ValidationError || error instanceof UsageError) {
    return { code: exitCodes.badInput, kind: error.name, field: error.field, message: error.message };
  }
  // By name: the configuration module is loaded only after the command line is parsed.
  if (error instanceof Error && error.name === 'ConfigError') return { code: exitCodes.badInput, kind: error.name, field: (error as ConfigError).key, message: error.message };
  if (error instanceof DomainError) return { code: exitCodes.badInput, kind: error.code, message: error.message };
  if (error instanceof ConcurrencyError || error instanceof CorruptEventError) return { code: exitCodes.failed, kind: error.name, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { code: exitCodes.failed, kind: 'Error', message: message.split('\n')[0] ?? message };
}

/** Runs one command line; resolves to the exit code (the launcher, main.ts, sets it). */
export async function main(argv: readonly string[]): Promise<number> {
  let json = argv.includes('--json');
  try {
    const line = parseCommandLine(argv, commands);
    if (line.kind === 'help') {
      process.stdout.write(json ? `${toJson({ help: line.text })}\n` : line.text);
      return exitCodes.ok;
    }
    json = line.flags.json === true;
    // A few modes need no store, and must not open one (verifying someone else's export).
    const bare = line.command.bare?.({ positionals: line.positionals, flags: line.flags }, createOutput(json));
    if (bare) return (await bare) ?? exitCodes.ok;
    const { loadConfig } = await import('../../engine/config.js');
    const dataDir = line.flags['data-dir'];
    const config = loadConfig({
      file: typeof line.flags.config === 'string' ? line.flags.config : undefined,
      env: process.env,
      overrides: { ...line.command.overrides?.(line), ...(typeof dataDir === 'string' ? { dataDir } : {}) },
    });
    await line.command.check?.(config);
    checkDataDir(config.dataDir, config.databaseFile, line.command.creates === true);
    // Only `start` runs the background consistency check: other commands are short-lived.
    // Only `start` runs the lifecycle scheduler too (missed ticks, then daily): `tick` runs one on demand.
    // Loaded only once the command line is known good: --help and bad input never pay for the engine.
    const { createMemoryEngine } = await import('../../engine/engine.js');
    // Only the servers pay for jieba's dictionary at open: a one-shot command meets Chinese, if ever, once.
    const serves = line.name === 'serve' || line.name === 'mcp';
    const engine = await createMemoryEngine(config, { maintenance: false, scheduler: line.name === 'start', warmTokenizer: serves });
    try {
      const inv = { positionals: line.positionals, flags: line.flags, config };
      return (await line.command.run(engine, inv, createOutput(json))) ?? exitCodes.ok;
    } finally {
      await engine.close();
    }
  } catch (error) {
    const { code, ...described } = describeError(error);
    if (json) process.stdout.write(`${toJson({ error: described })}\n`);
    else process.stderr.write(`lmem: ${printable(described.message)}\n`);
    return code;
  }
}

