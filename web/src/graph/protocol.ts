/** Messages between the graph page and its layout worker. */

export interface LayoutInput {
  readonly type: 'start';
  /** Community of each node, by node index. */
  readonly communities: Int32Array;
  /** Community sizes, by community id. */
  readonly sizes: readonly number[];
  /** Edge endpoints as node indexes: [s0, t0, s1, t1, ...]. */
  readonly links: Uint32Array;
  readonly weights: Float32Array;
}

export type LayoutOutput =
  | { readonly type: 'positions'; readonly xy: Float32Array; readonly tick: number; readonly done: boolean }
  | { readonly type: 'error'; readonly message: string };
