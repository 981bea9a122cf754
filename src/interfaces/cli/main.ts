#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConcurrencyError, CorruptEventError, ValidationError } from '../../events/errors.js';
import { DomainError } from '../../commands/errors.js';
import { ConfigError, loadConfig } from '../../engine/config.js';
import { createMemoryEngine } from '../../engine/engine.js';
import { commands } from './commands.js';
import { createOutput, toJson } from './output.js';

const options = {
  'data-dir': { type: 'string' },
  config: { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
  importance: { type: 'string' },
  session: { type: 'string' },
  persona: { type: 'string' },
  user: { type: 'string' },
  topic: { type: 'string', multiple: true },
  reason: { type: 'string' },
  stream: { type: 'string' },
  tail: { type: 'string' },
  from: { type: 'string' },
  scope: { type: 'string' },
  'top-k': { type: 'string' },
  explain: { type: 'boolean', default: false },
  anchor: { type: 'string' },
  at: { type: 'string' },
  format: { type: 'string' },
  out: { type: 'string' },
  preview: { type: 'boolean', default: false },
  rollback: { type: 'string' },
  to: { type: 'string' },
  'to-position': { type: 'string' },
  all: { type: 'boolean', default: false },
  verify: { type: 'string' },
} as const;

const usage = (): string =>
  ['usage: lmem <command> [--data-dir DIR] [--config FILE] [--json]', '', ...Object.values(commands).map((c) => `  ${c.usage}`)].join('\n');

/** Errors the user can act on get one clear line (and exit 2 for bad input); anything else is a bug. */
function describeError(error: unknown): { code: number; kind: string; message: string } {
  if (error instanceof ValidationError || error instanceof ConfigError) return { code: 2, kind: error.name, message: error.message };
  if (error instanceof DomainError) return { code: 2, kind: error.code, message: error.message };
  if (error instanceof ConcurrencyError || error instanceof CorruptEventError) return { code: 1, kind: error.name, message: error.message };
  const message = error instanceof Error ? error.message : String(error);
  return { code: 1, kind: 'Error', message };
}

export async function main(argv: readonly string[]): Promise<number> {
  let json = argv.includes('--json');
  try {
    const { values, positionals } = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
    json = values.json;
    const [name = 'status', ...rest] = positionals;
    if (values.help) {
      process.stdout.write(`${usage()}\n`);
      return 0;
    }
    const command = commands[name];
    if (!command) throw new ValidationError('command', `unknown command "${name}"\n${usage()}`);
    const config = loadConfig({
      file: values.config,
      env: process.env,
      overrides: values['data-dir'] ? { dataDir: values['data-dir'] } : {},
    });
    // Only `start` runs the background consistency check: other commands are short-lived.
    // Only `start` runs the lifecycle scheduler too (missed ticks, then daily): `tick` runs one on demand.
    const engine = await createMemoryEngine(config, { maintenance: false, scheduler: name === 'start' });
    try {
      return (await command.run(engine, { positionals: rest, flags: values }, createOutput(json))) ?? 0;
    } finally {
      await engine.close();
    }
  } catch (error) {
    const { code, kind, message } = describeError(error);
    if (json) process.stdout.write(`${toJson({ error: { kind, message } })}\n`);
    else process.stderr.write(`lmem: ${message}\n`);
    return code;
  }
}

process.exitCode = await main(process.argv.slice(2));
