import { Command as Commander, CommanderError, Option } from 'commander';
import { ValidationError } from '../../events/errors.js';
import type { Command, OptionSpec } from './args.js';
import { globalOptions } from './options.js';

/** A command line commander refused (unknown flag, missing or extra argument): exit 2, like any bad input. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export type Flags = Record<string, string | boolean | string[] | undefined>;

export type ParsedLine =
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'run'; readonly name: string; readonly command: Command; readonly positionals: string[]; readonly flags: Flags };

// A token that starts with '-' but cannot be a flag name ('- tea', '-1', '-€') is text: without this,
// commander would refuse it as an unknown option. Such tokens are hidden from it behind a NUL-prefixed
// key (no real argument can hold NUL) and given back afterwards. `--` ends the flags as usual.
const isText = (arg: string): boolean => arg.length > 1 && arg.startsWith('-') && arg !== '--' && !/^--?[A-Za-z]/.test(arg);

function addOptions(cmd: Commander, specs: readonly OptionSpec[]): void {
  for (const spec of specs) {
    const option = new Option(spec.flags, spec.description);
    if (spec.multiple) option.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
    cmd.addOption(option);
  }
}

function build(registry: Readonly<Record<string, Command>>, onHelp: (text: string) => void, chosen: (name: string, cmd: Commander) => void) {
  const program = new Commander('lmem')
    .description('LivingMemory: an event-sourced long-term memory for LLM agents')
    .enablePositionalOptions()
    .showSuggestionAfterError(true)
    .configureOutput({ writeOut: onHelp, writeErr: onHelp, outputError: () => undefined })
    .exitOverride();
  addOptions(program, globalOptions);
  for (const [name, spec] of Object.entries(registry)) {
    const sub = program.command(name).description(spec.summary);
    for (const arg of spec.args ?? []) sub.argument(arg);
    addOptions(sub, [...(spec.options ?? []), ...globalOptions]);
    sub.action(() => chosen(name, sub));
  }
  return program;
}

/** Splits a command line into the command, its positionals and its flags, each flag checked by its spec. */
export function parseCommandLine(argv: readonly string[], registry: Readonly<Record<string, Command>>): ParsedLine {
  const hidden = new Map<string, string>();
  const args = argv.map((arg, i) => {
    if (!isText(arg)) return arg;
    hidden.set(`\u0000${i}`, arg);
    return `\u0000${i}`;
  });
  const restore = <T>(v: T): T =>
    (typeof v === 'string' ? (hidden.get(v) ?? v) : Array.isArray(v) ? v.map((x: unknown) => restore(x)) : v) as T;
  const restoreText = (text: string): string => text.replace(/\u0000\d+/g, (key) => hidden.get(key) ?? key);
  const attempt = (line: readonly string[]): ParsedLine => {
    let help = '';
    let picked: { name: string; cmd: Commander } | undefined;
    const program = build(registry, (text) => (help += text), (name, cmd) => (picked = { name, cmd }));
    try {
      program.parse([...line], { from: 'user' });
    } catch (error) {
      if (!(error instanceof CommanderError)) throw error;
      if (error.exitCode === 0) return { kind: 'help', text: help };
      // No command at all: `lmem` alone (or with global flags) means `lmem status`.
      if (error.code === 'commander.help') return attempt([...line, 'status']);
      throw usageError(restoreText(error.message));
    }
    if (!picked) throw new UsageError('command', 'no command given');
    const { name, cmd } = picked;
    return { kind: 'run', name, command: registry[name] as Command, positionals: restore(cmd.args), flags: flagsOf(cmd, program, restore) };
  };
  const parsed = attempt(args);
  if (parsed.kind === 'run') checkFlags(parsed.command, parsed.flags);
  return parsed;
}

function flagsOf(cmd: Commander, program: Commander, restore: <T>(v: T) => T): Flags {
  const flags: Flags = {};
  for (const from of [program, cmd]) {
    for (const option of from.options) {
      const value = from.getOptionValue(option.attributeName()) as Flags[string];
      if (value !== undefined && option.long) flags[option.long.slice(2)] = restore(value);
    }
  }
  return flags;
}

/** Empty values are refused for every flag (an empty id must never mean "every subject"); then each spec's syntax check. */
function checkFlags(command: Command, flags: Flags): void {
  const specs = new Map([...(command.options ?? []), ...globalOptions].map((s) => [longName(s), s]));
  for (const [name, value] of Object.entries(flags)) {
    for (const raw of typeof value === 'string' ? [value] : Array.isArray(value) ? value : []) {
      if (raw.length === 0) throw new ValidationError(name, 'must not be empty');
      specs.get(name)?.value?.(name, raw);
    }
  }
}

const longName = (spec: OptionSpec): string => /--([A-Za-z0-9-]+)/.exec(spec.flags)?.[1] ?? spec.flags;

/** Commander's message as one line, without its "error: " prefix; the field is the first quoted name in it. */
function usageError(message: string): UsageError {
  const line = message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ');
  return new UsageError(/'([^']+)'/.exec(line)?.[1] ?? 'command line', line);
}
