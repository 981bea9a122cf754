// The bundled CLI's entry (.ci/bundle-cli.mjs, ADR 26): the same `main`, with zod's JIT off.
import './jitless.js';

export { main } from './run.js';
