/**
 * Start positions seeded by community: each community gets a centre on a sunflower spiral (the
 * largest in the middle), its disc sized by its member count, and its nodes a spiral inside it.
 * Deterministic: the same graph always starts from the same picture.
 */
export function seedPositions(communities: Int32Array, sizes: readonly number[]): Float32Array {
  const golden = Math.PI * (3 - Math.sqrt(5));
  const radius = sizes.map((n) => 6 * Math.sqrt(n) + 4);
  const centres: [number, number][] = [];
  let ring = 0;
  sizes.forEach((_, c) => {
    // The spiral's step grows with the discs already placed, so neighbours rarely overlap.
    ring += radius[c] ?? 0;
    const r = c === 0 ? 0 : Math.sqrt(ring) * 9;
    centres.push([r * Math.cos(c * golden), r * Math.sin(c * golden)]);
  });
  const seen = new Int32Array(sizes.length);
  const xy = new Float32Array(communities.length * 2);
  for (let i = 0; i < communities.length; i += 1) {
    const c = communities[i] ?? 0;
    const k = (seen[c] = (seen[c] ?? 0) + 1);
    const [cx, cy] = centres[c] ?? [0, 0];
    const r = 6 * Math.sqrt(k);
    xy[2 * i] = cx + r * Math.cos(k * golden);
    xy[2 * i + 1] = cy + r * Math.sin(k * golden);
  }
  return xy;
}
