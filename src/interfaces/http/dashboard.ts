import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { extname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Mount } from './server.js';

const types: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** dist/web, built by the setup step (vite), found from this module in dist/ or in src/ under the test runner. */
function dashboardDir(): string {
  // From dist/src/interfaces/http the first is dist/dist/web (absent), the second dist/web.
  for (const up of ['../../../dist/web', '../../../web']) {
    const dir = fileURLToPath(new URL(up, import.meta.url));
    if (existsSync(join(dir, 'assets'))) return realpathSync(dir);
  }
  return fileURLToPath(new URL('../../../dist/web', import.meta.url));
}

/**
 * The dashboard at /ui/ (and / sends you there): static files only, no API of its own; it talks
 * to the REST routes under /v1 like any other client. Without a build it says how to make one.
 */
export function dashboardMount(dir = dashboardDir()): Mount {
  return (app) => {
    const file = (name: string): { body: Buffer; type: string } | null => {
      const path = join(dir, name);
      // Only files inside the build folder: no `..` escapes.
      if (!path.startsWith(dir + sep) || !existsSync(path)) return null;
      return { body: readFileSync(path), type: types[extname(path)] ?? 'application/octet-stream' };
    };
    app.get('/', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/ui/'));
    app.get('/ui', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/ui/'));
    app.get('/ui/*', { schema: { hide: true } }, async (req, reply) => {
      const name = (req.params as { '*': string })['*'] || 'index.html';
      const found = file(name) ?? (name.includes('.') ? null : file('index.html'));
      if (!found) {
        const built = existsSync(join(dir, 'index.html'));
        return reply.code(404).send({
          error: built ? `no dashboard file ${name}` : 'the dashboard is not built: run `npm run setup`',
          field: null,
          code: built ? 'route_not_found' : 'dashboard_not_built',
        });
      }
      // Hashed asset names never change content; index.html must always be fresh.
      const cache = name.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
      return reply.type(found.type).header('cache-control', cache).header('x-content-type-options', 'nosniff').send(found.body);
    });
  };
}
