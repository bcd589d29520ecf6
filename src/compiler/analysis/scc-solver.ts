// Summaries of functions that depend on their callees' summaries (effects, variedness),
// solved one strongly connected component of the call graph at a time (Tarjan): a callee
// outside every cycle through the caller is finished, and cached, before the caller reads it,
// and only the functions of one cycle are iterated together to their least fixed point. A
// chain of calls is then solved in one pass, not by iterating the whole chain once per link.

interface Frame {
  index: number;
  /** The smallest index of an unfinished summary this one read (Tarjan's lowlink). */
  low: number;
  /** Whether it read its own summary (a function calling itself). */
  self: boolean;
}

export class SccSolver<V> {
  private readonly cache = new Map<string, V>();
  /** Unfinished summaries: their index in visiting order, and their current approximation. */
  private index = new Map<string, number>();
  private approx = new Map<string, V>();
  private stack: string[] = [];
  private frames: Frame[] = [];
  private counter = 0;

  /**
   * @param compute the summary of `id`, reading callees' summaries through {@link get}.
   * @param bottom where the least fixed point of `id` starts.
   * @param join the approximation grown by what `compute` found.
   * @param same whether two approximations are equal (the iteration stops).
   */
  constructor(
    private readonly compute: (id: string) => V,
    private readonly bottom: (id: string) => V,
    private readonly join: (old: V, next: V) => V,
    private readonly same: (a: V, b: V) => boolean,
  ) {}

  /** Whether the summary of `id` is known or under way. */
  has(id: string): boolean {
    return this.cache.has(id) || this.index.has(id);
  }

  /**
   * Runs `work` as if no summary were being solved: an analysis started from inside a solve
   * (a derivative built on the way) must not see its approximations. Finished summaries stay.
   */
  isolated<T>(work: () => T): T {
    const saved = [this.index, this.approx, this.stack, this.frames] as const;
    this.index = new Map();
    this.approx = new Map();
    this.stack = [];
    this.frames = [];
    try {
      return work();
    } finally {
      [this.index, this.approx, this.stack, this.frames] = saved;
    }
  }

  /** The summary of `id`: final, or inside a cycle being solved, the current approximation. */
  get(id: string): V {
    const done = this.cache.get(id);
    if (done !== undefined || this.cache.has(id)) return done!;
    const at = this.index.get(id);
    if (at !== undefined) {
      const top = this.frames[this.frames.length - 1];
      if (top) {
        top.low = Math.min(top.low, at);
        if (at === top.index) top.self = true;
      }
      return this.approx.get(id)!;
    }
    if (this.frames.length > 0) return this.visit(id);
    try {
      return this.visit(id);
    } catch (error) {
      // A failure (a compiler bug) leaves nothing half solved behind.
      this.index.clear();
      this.approx.clear();
      this.stack.length = 0;
      this.frames.length = 0;
      throw error;
    }
  }

  private visit(id: string): V {
    const frame: Frame = { index: this.counter++, low: Infinity, self: false };
    frame.low = frame.index;
    this.index.set(id, frame.index);
    this.stack.push(id);
    this.approx.set(id, this.bottom(id));
    this.frames.push(frame);
    try {
      this.approx.set(id, this.join(this.approx.get(id)!, this.compute(id)));
    } finally {
      this.frames.pop();
    }
    const parent = this.frames[this.frames.length - 1];
    if (frame.low < frame.index) {
      // Part of a cycle through an unfinished caller: finished with it.
      if (parent) parent.low = Math.min(parent.low, frame.low);
      return this.approx.get(id)!;
    }
    const root = this.stack.indexOf(id);
    if (this.stack.length - root > 1 || frame.self) {
      // A cycle: iterate its members until no approximation grows. Reads of members answer
      // with approximations; the frame only absorbs them. A summary first reached in a later
      // round that reads a member stays on the stack above them, and joins them.
      this.frames.push({ index: frame.index, low: frame.index, self: false });
      try {
        for (let changed = true; changed;) {
          changed = false;
          const members = this.stack.slice(root);
          for (const m of members) {
            const old = this.approx.get(m)!;
            const next = this.join(old, this.compute(m));
            if (!this.same(old, next)) {
              this.approx.set(m, next);
              changed = true;
            }
          }
          if (this.stack.length - root > members.length) changed = true;
        }
      } finally {
        this.frames.pop();
      }
    }
    const members = this.stack.splice(root);
    for (const m of members) {
      this.cache.set(m, this.approx.get(m)!);
      this.index.delete(m);
      this.approx.delete(m);
    }
    return this.cache.get(id)!;
  }
}
