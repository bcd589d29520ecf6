import { forEachOpInnerFirst, terminator } from "../ir/walk.js";
import { isAggregate, isObject } from "../ir/type-system.js";
import type { IRFunction, Op, Region, Value } from "../ir/types.js";

// Which arrays and objects a function writes, telling a container from what it holds: storing
// an object into a local array writes the array, not the object (`positions.push(origin)` with
// a module-level `origin`). effects.ts's alias classes put a container and its contents in one
// class, which every other question needs (what a write may change); here each class of values
// has a class for what its members hold (Steensgaard's unification-based points-to analysis),
// so a write changes the slots of its target's class only. Used for module-level writes
// (NABLA105) and for what a function writes of its parameters, its own slots or deeper.

/** A callee's writes as this analysis sees them (absent: a callee not summarized yet). */
export interface PreciseWrites {
  /** Parameters whose own elements or fields it may change. */
  ownWrites: Set<number>;
  /** Parameters inside which (in an array or object they hold) it may change something. */
  innerWrites: Set<number>;
  /** Parameters whose memory the returned value may be, hold, or be held in. */
  aliases: Set<number>;
  /** Parameters that may come to share memory with another (one stored into the other). */
  replaces: Set<number>;
  /**
   * Whether the returned array or object may be one that existed before the call (false:
   * always one the function made, such as `v.slice()`).
   */
  returnsOld: boolean;
}

export type PreciseWritesOf = (
  op: Op,
) => { writes: PreciseWrites; param: (i: number) => number } | undefined;

/** Classes of values that may be the same array or object, each with the class of what it holds. */
class Cells {
  private readonly parent = new Map<number, number>();
  private readonly holds = new Map<number, number>();
  private fresh = -1;

  find(id: number): number {
    let root = id;
    while (this.parent.has(root) && this.parent.get(root) !== root) root = this.parent.get(root)!;
    if (root !== id) this.parent.set(id, root);
    return root;
  }

  /** The class of what the members of `id`'s class hold. */
  contents(id: number): number {
    const root = this.find(id);
    let inner = this.holds.get(root);
    if (inner === undefined) {
      inner = this.fresh--;
      this.holds.set(root, inner);
    }
    return this.find(inner);
  }

  unify(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra === rb) return;
    this.parent.set(ra, rb);
    const ia = this.holds.get(ra);
    const ib = this.holds.get(rb);
    this.holds.delete(ra);
    if (ia === undefined) return;
    if (ib === undefined) this.holds.set(rb, ia);
    else this.unify(ia, ib);
  }

  /** The classes held inside `id`'s class, at any depth (not its own, unless it holds itself). */
  inside(id: number): Set<number> {
    const found = new Set<number>();
    for (let c = this.held(id); c !== undefined && !found.has(c); c = this.held(c)) found.add(c);
    return found;
  }

  /** The class of what `id`'s class holds, if anything was ever put in or read out of it. */
  private held(id: number): number | undefined {
    const inner = this.holds.get(this.find(id));
    return inner === undefined ? undefined : this.find(inner);
  }
}

/** What one function writes: its own analysis, given its callees'. */
export interface WriteAnalysis {
  /** The writes of the function's parameters, for its callers. */
  summary: PreciseWrites;
  /** The ops (stores and calls) that write `v`'s own slots, or those of what it holds. */
  writersWithin(v: Value): Op[];
}

export function analyzeWrites(fn: IRFunction, writesOf: PreciseWritesOf): WriteAnalysis {
  const cells = new Cells();
  const aggregate = (v: Value) => isAggregate(v.type);
  const unify = (a: Value, b: Value) => {
    if (aggregate(a) && aggregate(b)) cells.unify(a.id, b.id);
  };
  const holdsValue = (container: Value, v: Value) => {
    if (aggregate(v)) cells.unify(cells.contents(container.id), v.id);
  };
  /** A value and everything it holds as one class (a self-holding class). */
  const collapse = (v: Value) => cells.unify(v.id, cells.contents(v.id));
  const globals = new Map<string, Value>();
  /** Each write: the op, and the value whose own slots (or what it holds, `inner`) it changes. */
  const stores: { op: Op; target: Value; inner: boolean }[] = [];
  // The arrays and objects the function makes (`alloc`, `[a, b]`, `{ x }`, zeros), as values
  // those ops define. A store into one of them, by that very value, changes an array or object
  // that did not exist before: no parameter's, and no module-level one (which could hold it
  // only after a write of its own, reported as such), however its class merges later. A
  // state started from a module-level constant and replaced in a loop (`let body = START`,
  // then `body = { position: body.position.map(…) }`) unifies the new arrays with START's;
  // their stores are not START's.
  // So is what a callee returns that it made itself (`const next = clone(state)`).
  // And a field of an object literal read back before anything could have replaced it (`const
  // next = { v: s.v.map(f) }; next.v[0] *= k`): no field store and no call between the two,
  // in one block.
  const made = new Set<number>();
  const walkMade = (region: Region): void => {
    /** Per object literal of this block: its fields holding made values, while intact. */
    const intact = new Map<number, Map<string, Value>>();
    for (const op of region.ops) {
      op.regions.forEach(walkMade);
      const [first] = op.operands;
      const result = op.results[0];
      if (op.opcode === "alloc" || op.opcode === "literal" || op.opcode === "zeros")
        for (const r of op.results) made.add(r.id);
      if (op.opcode === "literal" && result && isObject(result.type)) {
        const fields = new Map<string, Value>();
        result.type.fields.forEach((f, k) => {
          const v = op.operands[k];
          if (v && made.has(v.id)) fields.set(f.name, v);
        });
        intact.set(result.id, fields);
      } else if (op.opcode === "field" && result && first) {
        if (intact.get(first.id)?.has(op.attrs.field!)) made.add(result.id);
      } else if (
        op.opcode === "call" ||
        op.opcode === "setField" ||
        op.opcode === "addField" ||
        op.regions.length > 0
      )
        intact.clear();
      if (
        op.opcode === "call" &&
        op.results.length === 1 &&
        writesOf(op)?.writes.returnsOld === false
      )
        made.add(op.results[0]!.id);
    }
  };
  walkMade(fn.body);

  const visit = (region: Region): void =>
    forEachOpInnerFirst(region, (op) => {
      const [first] = op.operands;
      const result = op.results[0];
      switch (op.opcode) {
        case "global": {
          const seen = globals.get(op.attrs.callee!);
          if (seen) unify(result!, seen);
          else globals.set(op.attrs.callee!, result!);
          return;
        }
        case "field":
        case "index":
          if (result && aggregate(result)) cells.unify(result.id, cells.contents(first!.id));
          return;
        case "setField":
        case "setIndex":
        case "addField":
        case "addIndex":
          holdsValue(first!, op.operands[op.operands.length - 1]!);
          if (!made.has(first!.id)) stores.push({ op, target: first!, inner: false });
          return;
        case "truncate":
          if (!made.has(first!.id)) stores.push({ op, target: first!, inner: false });
          return;
        case "literal":
          for (const v of op.operands) holdsValue(result!, v);
          return;
        case "detach":
          unify(result!, first!);
          return;
        case "select":
          unify(result!, op.operands[1]!);
          unify(result!, op.operands[2]!);
          return;
        case "if":
          op.results.forEach((r, i) =>
            op.regions.forEach((reg) => unify(r, terminator(reg).operands[i]!)),
          );
          return;
        case "loop": {
          const [before, after] = op.regions as [Region, Region];
          const forwarded = terminator(before).operands.slice(1);
          const yielded = terminator(after).operands;
          before.params.forEach((p, i) => {
            unify(p, op.operands[i]!);
            unify(p, yielded[i]!);
          });
          forwarded.forEach((f, i) => {
            unify(f, after.params[i]!);
            unify(f, op.results[i]!);
          });
          return;
        }
        case "call":
          return call(op);
      }
    });

  const call = (op: Op): void => {
    const args = op.operands.filter(aggregate);
    const results = op.results.filter(aggregate);
    const known = writesOf(op);
    if (!known) {
      // A callee not summarized: it may do anything with what it is given, at any depth.
      for (const a of args) {
        collapse(a);
        for (const b of args) unify(a, b);
        for (const r of results) unify(r, a);
        stores.push({ op, target: a, inner: false });
      }
      return;
    }
    const { writes, param } = known;
    op.operands.forEach((arg, i) => {
      if (!aggregate(arg)) return;
      const k = param(i);
      // The summaries say "somewhere in the parameter": the result may be the argument or
      // anything it holds, and a stored array may land at any depth, so the argument and what
      // it holds become one class here.
      if (writes.replaces.has(k)) {
        collapse(arg);
        for (const b of args) if (b !== arg) unify(arg, b);
      }
      if (writes.aliases.has(k)) {
        collapse(arg);
        for (const r of results) unify(r, arg);
      }
      if (writes.ownWrites.has(k)) stores.push({ op, target: arg, inner: false });
      if (writes.innerWrites.has(k)) stores.push({ op, target: arg, inner: true });
    });
  };

  visit(fn.body);

  // The classes whose own slots are written, with the ops that write them.
  const written = new Map<number, Op[]>();
  const mark = (root: number, op: Op) => {
    const ops = written.get(root) ?? [];
    if (!ops.includes(op)) ops.push(op);
    written.set(root, ops);
  };
  for (const s of stores) {
    if (s.inner) for (const c of cells.inside(s.target.id)) mark(c, s.op);
    else mark(cells.find(s.target.id), s.op);
  }

  const ret = terminator(fn.body).operands[0];
  const summary: PreciseWrites = {
    ownWrites: new Set(),
    innerWrites: new Set(),
    aliases: new Set(),
    replaces: new Set(),
    returnsOld: !(ret && made.has(ret.id)),
  };
  /** A value's class and the classes inside it. */
  const memory = (v: Value) => new Set([cells.find(v.id), ...cells.inside(v.id)]);
  const meets = (x: Set<number>, y: Set<number>) => [...x].some((c) => y.has(c));
  const params = fn.params.map((p) => (aggregate(p) ? memory(p) : undefined));
  const returned = ret && aggregate(ret) ? memory(ret) : undefined;
  fn.params.forEach((p, i) => {
    const mine = params[i];
    if (!mine) return;
    if (written.has(cells.find(p.id))) summary.ownWrites.add(i);
    if ([...cells.inside(p.id)].some((c) => written.has(c))) summary.innerWrites.add(i);
    if (returned && meets(returned, mine)) summary.aliases.add(i);
    // Parameters start apart: sharing memory at the end, one was stored into the other.
    if (params.some((other, j) => j !== i && other !== undefined && meets(other, mine)))
      summary.replaces.add(i);
  });
  return {
    summary,
    writersWithin: (v) => {
      if (!aggregate(v)) return [];
      const classes = [cells.find(v.id), ...cells.inside(v.id)];
      return [...new Set(classes.flatMap((c) => written.get(c) ?? []))];
    },
  };
}
