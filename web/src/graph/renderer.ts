/** Draws the graph on a 2D canvas: one path per colour, so 5,000 nodes cost a handful of fill calls. */

export interface Drawable {
  /** Community of each node, by index. */
  readonly communities: Int32Array;
  /** Edge endpoints as node indexes: [s0, t0, s1, t1, ...]. */
  readonly links: Uint32Array;
  /** Radius of each node (from its weighted degree). */
  readonly radius: Float32Array;
  readonly isolates: number | null;
}

export interface View { x: number; y: number; scale: number }

const palette = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#86bcb6', '#d37295', '#8cd17d'];

export function colourOf(community: number, isolates: number | null): string {
  if (community === isolates) return '#7f8791';
  if (community < palette.length) return palette[community] as string;
  // Past the palette, hues step by the golden angle so neighbours in id stay apart.
  return `hsl(${Math.round((community * 137.508) % 360)} 60% 58%)`;
}

export function createRenderer(canvas: HTMLCanvasElement) {
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('this browser has no 2D canvas');
  let data: Drawable | null = null;
  let xy: Float32Array | null = null;
  let view: View = { x: 0, y: 0, scale: 1 };
  // The view follows the layout (fitted on every move) until the user pans or zooms.
  let following = true;
  let highlighted: number | null = null;
  let selected: number | null = null;
  let frame = 0;
  let framesDrawn = 0;
  let onFrame: (drawnNodes: number) => void = () => undefined;

  const size = () => {
    const ratio = window.devicePixelRatio || 1;
    const { clientWidth: w, clientHeight: h } = canvas;
    if (canvas.width !== Math.round(w * ratio) || canvas.height !== Math.round(h * ratio)) {
      canvas.width = Math.round(w * ratio);
      canvas.height = Math.round(h * ratio);
    }
    return { w, h, ratio };
  };

  function draw(): void {
    frame = 0;
    if (!data || !xy) return;
    const { w, h, ratio } = size();
    ctx!.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx!.clearRect(0, 0, w, h);
    ctx!.setTransform(ratio * view.scale, 0, 0, ratio * view.scale, ratio * (w / 2 + view.x), ratio * (h / 2 + view.y));
    const { links, communities, radius } = data;
    ctx!.lineWidth = 0.6 / view.scale;
    ctx!.strokeStyle = 'rgba(190, 200, 220, 0.18)';
    ctx!.beginPath();
    for (let i = 0; i < links.length; i += 2) {
      const s = links[i] as number;
      const t = links[i + 1] as number;
      ctx!.moveTo(xy[2 * s] as number, xy[2 * s + 1] as number);
      ctx!.lineTo(xy[2 * t] as number, xy[2 * t + 1] as number);
    }
    ctx!.stroke();
    const byColour = new Map<number, number[]>();
    for (let i = 0; i < communities.length; i += 1) {
      const c = communities[i] as number;
      let list = byColour.get(c);
      if (!list) byColour.set(c, (list = []));
      list.push(i);
    }
    let drawn = 0;
    for (const [c, members] of byColour) {
      ctx!.globalAlpha = highlighted === null || highlighted === c ? 1 : 0.15;
      ctx!.fillStyle = colourOf(c, data.isolates);
      ctx!.beginPath();
      for (const i of members) {
        const x = xy[2 * i] as number;
        const y = xy[2 * i + 1] as number;
        // Radii are screen pixels: zooming spreads nodes apart instead of inflating them.
        const r = (radius[i] as number) / view.scale;
        ctx!.moveTo(x + r, y);
        ctx!.arc(x, y, r, 0, Math.PI * 2);
      }
      ctx!.fill();
      drawn += members.length;
    }
    ctx!.globalAlpha = 1;
    if (selected !== null) {
      ctx!.strokeStyle = '#ffffff';
      ctx!.lineWidth = 2 / view.scale;
      ctx!.beginPath();
      ctx!.arc(xy[2 * selected] as number, xy[2 * selected + 1] as number, ((radius[selected] as number) + 3) / view.scale, 0, Math.PI * 2);
      ctx!.stroke();
    }
    framesDrawn += 1;
    onFrame(drawn);
  }

  const schedule = () => {
    if (!frame) frame = requestAnimationFrame(draw);
  };

  return {
    setData(next: Drawable): void {
      data = next;
      schedule();
    },
    setPositions(next: Float32Array): void {
      xy = next;
      if (following) this.fit();
      schedule();
    },
    /** Fits the current positions in the canvas. */
    fit(): void {
      if (!xy || xy.length === 0) return;
      let [minX, minY, maxX, maxY] = [Infinity, Infinity, -Infinity, -Infinity];
      for (let i = 0; i < xy.length; i += 2) {
        minX = Math.min(minX, xy[i] as number); maxX = Math.max(maxX, xy[i] as number);
        minY = Math.min(minY, xy[i + 1] as number); maxY = Math.max(maxY, xy[i + 1] as number);
      }
      const { w, h } = size();
      const scale = Math.min(w / Math.max(maxX - minX + 40, 1), h / Math.max(maxY - minY + 40, 1));
      view = { scale, x: -((minX + maxX) / 2) * scale, y: -((minY + maxY) / 2) * scale };
      schedule();
    },
    getView: (): View => ({ ...view }),
    /** A view the user chose: the view stops following the layout. */
    setView(next: View): void {
      following = false;
      view = next;
      schedule();
    },
    highlight(community: number | null): void {
      highlighted = community;
      schedule();
    },
    select(index: number | null): void {
      selected = index;
      schedule();
    },
    /** The node under a point of the canvas (CSS pixels), or null. */
    pick(px: number, py: number): number | null {
      if (!xy || !data) return null;
      const { w, h } = size();
      const x = (px - w / 2 - view.x) / view.scale;
      const y = (py - h / 2 - view.y) / view.scale;
      let best: number | null = null;
      let bestD = (8 / view.scale) ** 2;
      for (let i = 0; i < data.communities.length; i += 1) {
        const d = ((xy[2 * i] as number) - x) ** 2 + ((xy[2 * i + 1] as number) - y) ** 2;
        if (d < bestD + ((data.radius[i] as number) / view.scale) ** 2) (best = i), (bestD = d);
      }
      return best;
    },
    onFrame(listener: (drawnNodes: number) => void): void {
      onFrame = listener;
    },
    frames: () => framesDrawn,
    destroy(): void {
      if (frame) cancelAnimationFrame(frame);
      data = null;
    },
  };
}

export type Renderer = ReturnType<typeof createRenderer>;
