import { threadScript } from '../events/thread-script.js';

/** A worker thread's compiled script in src/engine; under the test runner (TypeScript sources) the build's copy. */
export const engineThreadScript = (name: string): URL => threadScript(import.meta.url, name);
