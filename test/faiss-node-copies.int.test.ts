import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// faiss-node 0.5.1 kept a whole copy of the index on every toBuffer and fromBuffer (its reader and
// writer were never freed); .ci/faiss/build.sh patches that. Run in a child process with a GC it
// can call, so what stays is what native code kept, not garbage not yet collected.
const script = `
const faiss = require('faiss-node');
const d = 256, n = 40000;
const index = new faiss.IndexFlatIP(d);
const xs = new Array(n * d);
for (let i = 0; i < xs.length; i += 1) xs[i] = ((i * 2654435761) % 1000) / 1000 - 0.5;
index.add(xs);
const tick = () => new Promise((resolve) => setImmediate(resolve));
// Collected, and a few turns for the finalizers that free a dropped index's own vectors.
const settle = async () => { for (let i = 0; i < 3; i += 1) { global.gc(); await tick(); } return process.memoryUsage().rss; };
(async () => {
  let copy = faiss.IndexFlatIP.fromBuffer(index.toBuffer());
  const before = await settle();
  for (let round = 0; round < 12; round += 1) {
    copy = faiss.IndexFlatIP.fromBuffer(copy.toBuffer());
    await settle();
  }
  console.log(JSON.stringify({ grew: (await settle()) - before, ntotal: copy.ntotal() }));
})();
`;

describe('faiss-node as built here (ADR 8)', () => {
  it('given an index of 40 MB, when it is serialised and read back twelve times, then no copy stays behind', () => {
    const out = execFileSync(process.execPath, ['--expose-gc', '-e', script], { cwd: process.cwd(), encoding: 'utf8' });
    const { grew, ntotal } = JSON.parse(out) as { grew: number; ntotal: number };
    expect(ntotal).toBe(40_000);
    // Unpatched, each round kept two copies: about 980 MB.
    expect(grew).toBeLessThan(200 * 2 ** 20);
  });
});
