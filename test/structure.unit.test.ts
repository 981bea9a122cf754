import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Caps that keep the structure visible as the code grows (see docs/adr/0006-code-shape.md).
const maxLines = 250;
const layers = ['events', 'commands', 'projections', 'extraction', 'queries', 'replay', 'providers', 'engine', 'interfaces'];
// A layer may import only from the layers listed for it (ADR 22: doors on top, then the engine).
const allowed: Record<string, readonly string[]> = {
  events: ['events'],
  commands: ['events', 'commands'],
  projections: ['events', 'projections'],
  extraction: ['events', 'projections', 'extraction'],
  queries: ['events', 'projections', 'queries'],
  replay: ['events', 'commands', 'projections', 'queries', 'replay'],
  providers: ['events', 'projections', 'extraction', 'queries', 'providers'],
  engine: layers.filter((l) => l !== 'interfaces'),
  interfaces: layers,
  // The package's root entry (src/index.ts) re-exports the public surface of every layer.
  'index.ts': layers,
};

const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : [];
  });

describe('code shape', () => {
  const sources = files('src');

  it(`keeps every source file under ${maxLines} lines`, () => {
    const tooLong = sources.filter((path) => readFileSync(path, 'utf8').split('\n').length > maxLines);
    expect(tooLong).toEqual([]);
  });

  it('imports only flow from lower layers to higher ones', () => {
    const violations = sources.flatMap((path) => {
      const layer = path.split('/')[1] ?? '';
      const imports = [...readFileSync(path, 'utf8').matchAll(/from '(\.\.?\/[^']+)'/g)].map((m) => m[1] ?? '');
      return imports
        .map((spec) => join(path, '..', spec).split('/')[1] ?? '')
        .filter((target) => !(allowed[layer] ?? []).includes(target))
        .map((target) => `${path} -> ${target}`);
    });
    expect(violations).toEqual([]);
  });
});
