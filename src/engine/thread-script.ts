import { threadScript } from '../events/thread-script.js';

/** A worker thread's compiled script in src/engine (under the test runner, the build's copy); null when not built. */
export const engineThreadScript = (name: string): URL | null => threadScript(import.meta.url, name);
