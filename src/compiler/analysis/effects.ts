import { forEachOp, forEachOpInnerFirst } from "../ir/walk.js";
import { isAggregate, isArray } from "../ir/type-system.js";
import type { FunctionKey, IRFunction, Op, Region, SourceLoc, Value } from "../ir/types.js";
import { analyzeWrites, type PreciseWritesOf, type WriteAnalysis } from "./points-to.js";

// What a function does to the arrays and objects it is given, as seen by its callers:
// which parameters it may write (directly, or through a callee), and which parameters its
// result may alias. Activity analysis needs both: a varied value written into an argument
// makes the caller's array varied, and a result aliasing an argument shares its fate.

export interface Effects {
  /** Parameters whose contents the function may change. */
  writes: Set<number>;
  /** Parameters in which it may store arrays or objects (changing their structure). */
  replaces: Set<number>;
  /** Parameters whose arrays it may lengthen or shorten (`push`, `pop`), directly or through callees. */
  grows: Set<number>;
  /** Parameters the returned value may be, or contain. */
  aliases: Set<number>;
  /**
   * Per parameter, the first parameter in its alias class inside the function (−1 for
   * numbers): parameters that share a class, one of them replaced, may come to hold each
   * other's arrays.
   */
  sharing: number[];
  /**
   * Parameters whose own elements or fields it may change, and parameters inside which (in
   * what they hold) it may change something: `writes` told apart (see points-to.ts), for
   * telling module-level writes from stores into local arrays. Absent: as `writes`.
   */
  ownWrites?: Set<number>;
  innerWrites?: Set<number>;
  /** As points-to.ts sees them: what the result may share, which parameters come to share. */
  sharedWithResult?: Set<number>;
  sharedWithOthers?: Set<number>;
  /**
   * Whether the returned array or object may be one that existed before the call; absent (a
   * function with a rule, one not summarized): it may.
   */
  returnsOld?: boolean;
  /** Module-level arrays and objects it writes (directly or through callees). */
  moduleWrites: ModuleWrite[];
  /** Whether it reads module-level arrays or objects (directly or through callees). */
  readsModule: boolean;
  /**
   * Whether it calls anything outside the program (`console.log`, a method nabla only knows
   * by name: the `extern` op), directly or through callees: calling it again could be seen.
   */
  callsOut: boolean;
}

/** A write into a module-level array or object: where, and through which calls. */
export interface ModuleWrite {
  name: string;
  loc: SourceLoc;
  /** The calls that lead from the function to the write, innermost first. */
  calls: { callee: string; loc: SourceLoc }[];
  /** The write is a call given the array (which the callee writes). */
  passed: boolean;
  /** The callee of that call, when nabla cannot read it: it is only assumed to write. */
  unread?: FunctionKey;
}

export type EffectsOf = (callee: FunctionKey) => Effects | undefined;

/** Partitions aggregate values into classes that may share memory (union-find by value id). */
export class AliasClasses {
  private readonly parent = new Map<number, number>();

  find(id: number): number {
    let root = id;
    while (this.parent.has(root) && this.parent.get(root) !== root) root = this.parent.get(root)!;
    this.parent.set(id, root);
    return root;
  }

  union(a: Value, b: Value): boolean {
    if (!isAggregate(a.type) || !isAggregate(b.type)) return false;
    const ra = this.find(a.id);
    const rb = this.find(b.id);
    if (ra === rb) return false;
    this.parent.set(ra, rb);
    return true;
  }

  same(a: Value, b: Value): boolean {
    return this.find(a.id) === this.find(b.id);
  }
}

/**
 * Builds the alias classes of one function: a value read out of an aggregate, stored into one,
 * put in a literal, merged by `if`/loops or returned by a callee that may alias an argument
 * shares the class of that aggregate.
 */
/**
 * With `memory` (the default), every way two values may share memory counts; for activity
 * (`memory: false`), what sits in a `@noDerivative` field is kept apart from its object, since
 * it is constant for differentiation even when the object is not.
 */
export function aliasClasses(fn: IRFunction, effectsOf: EffectsOf, memory = true): AliasClasses {
  const classes = new AliasClasses();
  // Every read of one module-level array is the same array.
  const globals = new Map<string, Value>();
  const visit = (region: Region): void =>
    forEachOpInnerFirst(region, (op) => {
      switch (op.opcode) {
        case "global": {
          const first = globals.get(op.attrs.callee!);
          if (first) classes.union(op.results[0]!, first);
          else globals.set(op.attrs.callee!, op.results[0]!);
          break;
        }
        case "field":
        case "index":
          if (memory || !isNoDerivativeField(op)) classes.union(op.results[0]!, op.operands[0]!);
          break;
        case "setField":
        case "setIndex":
          if (memory || !isNoDerivativeField(op))
            classes.union(op.operands[op.operands.length - 1]!, op.operands[0]!);
          break;
        case "literal":
          for (const v of op.operands) classes.union(v, op.results[0]!);
          break;
        case "detach":
          // withoutDerivative of an array is the same memory, but constant for activity.
          if (memory && isAggregate(op.results[0]!.type))
            classes.union(op.results[0]!, op.operands[0]!);
          break;
        case "select":
          classes.union(op.results[0]!, op.operands[1]!);
          classes.union(op.results[0]!, op.operands[2]!);
          break;
        case "if":
          op.results.forEach((r, i) =>
            op.regions.forEach((reg) => classes.union(r, terminator(reg).operands[i]!)),
          );
          break;
        case "loop": {
          const [before, after] = op.regions as [Region, Region];
          const forwarded = terminator(before).operands.slice(1);
          const yielded = terminator(after).operands;
          before.params.forEach((p, i) => {
            classes.union(p, op.operands[i]!);
            classes.union(p, yielded[i]!);
          });
          forwarded.forEach((f, i) => {
            classes.union(f, after.params[i]!);
            classes.union(f, op.results[i]!);
          });
          break;
        }
        case "call": {
          // A derivative call returns the tangent first; the primal result is not a tangent.
          const result = op.results.find((r) => !r.tangent);
          const shadow = op.results.find((r) => r.tangent);
          const effects = effectsOf(calleeOf(op));
          const arity = op.attrs.primal ? arityOf(op) : op.operands.length;
          op.operands.forEach((arg, i) => {
            const k = i < arity ? i : shadowParam(op, i);
            // An argument the callee stores arrays into may come to hold the arguments it
            // shares a class with there (all of them, for a callee not summarized yet).
            if (!effects || effects.replaces.has(k))
              op.operands.forEach((other, j) => {
                if (j < arity !== i < arity) return;
                const l = j < arity ? j : shadowParam(op, j);
                if (!effects || sharesClass(effects, k, l)) classes.union(arg, other);
              });
            if (effects && !effects.aliases.has(k)) return;
            const target = i < arity ? result : shadow;
            if (target) classes.union(target, arg);
          });
          break;
        }
      }
    });
  visit(fn.body);
  return classes;
}

/** The effects of `fn` on its parameters, given its callees' effects. */
export function summarizeEffects(fn: IRFunction, effectsOf: EffectsOf): Effects {
  const classes = aliasClasses(fn, effectsOf);
  const { written, replaced } = writtenClasses(fn, classes, effectsOf);
  const ret = terminator(fn.body).operands[0];
  const writes = new Set<number>();
  const replaces = new Set<number>();
  const aliases = new Set<number>();
  const sharing = fn.params.map((p) =>
    isAggregate(p.type) ? fn.params.findIndex((q) => classes.same(p, q)) : -1,
  );
  fn.params.forEach((p, i) => {
    if (!isAggregate(p.type)) return;
    if (written.has(classes.find(p.id))) writes.add(i);
    if (replaced.has(classes.find(p.id))) replaces.add(i);
    if (ret && classes.same(ret, p)) aliases.add(i);
  });
  let readsModule = false;
  let callsOut = false;
  const grown = new Set<number>();
  forEachOp(fn.body, (op) => {
    if (op.opcode === "global" && isAggregate(op.results[0]!.type)) readsModule = true;
    if (op.opcode === "extern") callsOut = true;
    // A change of length (`push`, `pop`) either way: the caller's array is not the same size.
    if ((op.opcode === "setIndex" && op.attrs.value === "grow") || op.opcode === "truncate")
      grown.add(classes.find(op.operands[0]!.id));
    if (op.opcode === "call") {
      const effects = effectsOf(calleeOf(op));
      readsModule ||= effects?.readsModule ?? true;
      callsOut ||= effects?.callsOut ?? true;
      op.operands.forEach((arg, i) => {
        if (isAggregate(arg.type) && (!effects || effects.grows.has(i)))
          grown.add(classes.find(arg.id));
      });
    }
  });
  const grows = new Set<number>();
  fn.params.forEach((p, i) => {
    if (isAggregate(p.type) && grown.has(classes.find(p.id))) grows.add(i);
  });
  const precise = analyzeWrites(fn, preciseWritesOf(effectsOf));
  return {
    writes,
    replaces,
    grows,
    aliases,
    sharing,
    ownWrites: precise.summary.ownWrites,
    innerWrites: precise.summary.innerWrites,
    sharedWithResult: precise.summary.aliases,
    sharedWithOthers: precise.summary.replaces,
    returnsOld: precise.summary.returnsOld,
    moduleWrites: findModuleWrites(fn, effectsOf, precise),
    readsModule,
    callsOut,
  };
}

/**
 * The alias classes a function writes into (stores, or calls of functions that write their
 * arguments), and those it stores arrays or objects into. Calls of derivatives count as calls
 * of their primal, whose parameters come first.
 */
export function writtenClasses(
  fn: IRFunction,
  classes: AliasClasses,
  effectsOf: EffectsOf,
): { written: Set<number>; replaced: Set<number> } {
  const written = new Set<number>();
  const replaced = new Set<number>();
  const visit = (region: Region): void =>
    forEachOpInnerFirst(region, (op) => {
      opWrites(op, classes, effectsOf, written, replaced);
    });
  visit(fn.body);
  return { written, replaced };
}

/** Adds the classes one op (not its regions) writes to `written`, those it stores arrays into to `replaced`. */
function opWrites(
  op: Op,
  classes: AliasClasses,
  effectsOf: EffectsOf,
  written: Set<number>,
  replaced?: Set<number>,
): void {
  if (WRITES.has(op.opcode)) {
    const root = classes.find(op.operands[0]!.id);
    written.add(root);
    if (isAggregate(op.operands[op.operands.length - 1]!.type)) replaced?.add(root);
  }
  if (op.opcode === "truncate") {
    // Dropping elements writes the array; dropping arrays or objects changes what it holds.
    const root = classes.find(op.operands[0]!.id);
    written.add(root);
    const array = op.operands[0]!.type;
    if (isArray(array) && isAggregate(array.element)) replaced?.add(root);
  }
  if (op.opcode === "call") {
    const effects = effectsOf(calleeOf(op));
    op.operands.forEach((arg, i) => {
      if (!isAggregate(arg.type)) return;
      const root = classes.find(arg.id);
      // A shadow passed to a derivative: the callee writes it as it writes the primal.
      const k = i < (op.attrs.primal ? arityOf(op) : op.operands.length) ? i : shadowParam(op, i);
      if (!effects || effects.writes.has(k)) written.add(root);
      if (!effects || effects.replaces.has(k)) replaced?.add(root);
    });
  }
}

/**
 * For each read of memory and each call: the classes the function may write after it runs —
 * later in its region and in the regions around it, and anywhere in an enclosing loop (later
 * iterations). What is not written after a read can be read again in the backward sweep.
 */
export function writesAfter(
  fn: IRFunction,
  classes: AliasClasses,
  effectsOf: EffectsOf,
  replacesOnly = false,
): Map<Op, Set<number>> {
  const result = new Map<Op, Set<number>>();
  /** The classes an op writes (or, with `replacesOnly`, stores arrays into). */
  const opEffect = (op: Op, into: Set<number>) => {
    if (!replacesOnly) return opWrites(op, classes, effectsOf, into);
    opWrites(op, classes, effectsOf, new Set(), into);
  };
  const everything = new Map<Region, Set<number>>();
  /** Every class written anywhere in a region (nested included). */
  const allWrites = (region: Region): Set<number> => {
    let set = everything.get(region);
    if (set) return set;
    set = new Set();
    for (const op of region.ops) {
      opEffect(op, set);
      for (const r of op.regions) for (const c of allWrites(r)) set.add(c);
    }
    everything.set(region, set);
    return set;
  };
  const visit = (region: Region, later: Set<number>) => {
    const after = new Set(later);
    for (let k = region.ops.length - 1; k >= 0; k--) {
      const op = region.ops[k]!;
      if (op.opcode === "call" || READS.has(op.opcode)) result.set(op, new Set(after));
      if (op.opcode === "loop") {
        const inside = new Set(after);
        for (const r of op.regions) for (const c of allWrites(r)) inside.add(c);
        op.regions.forEach((r) => visit(r, inside));
      } else {
        op.regions.forEach((r) => visit(r, after));
      }
      opEffect(op, after);
      for (const r of op.regions) for (const c of allWrites(r)) after.add(c);
    }
  };
  visit(fn.body, new Set());
  return result;
}

const READS = new Set<Op["opcode"]>(["field", "index", "length"]);

/** The user function a call runs: its callee, or for a derivative call the primal. */
export function calleeOf(op: Op): FunctionKey {
  return op.attrs.primal ?? op.attrs.callee!;
}

/** Whether parameters `k` and `l` of a summarized function may share memory inside it. */
function sharesClass(effects: Effects, k: number, l: number): boolean {
  const a = effects.sharing[k];
  const b = effects.sharing[l];
  // Parameters the summary does not describe (a rule's adapter) are taken to share.
  return a === undefined || b === undefined || (a !== -1 && a === b);
}

/** How many primal arguments a call of a derivative passes (tangents follow them). */
function arityOf(op: Op): number {
  return op.operands.length - op.attrs.wrt!.length;
}

/** The primal parameter whose tangent a derivative call passes at operand `i`. */
function shadowParam(op: Op, i: number): number {
  return op.attrs.wrt![i - arityOf(op)]!;
}

/**
 * Writes into module-level arrays and objects (directly or through a callee): differentiable
 * code must not change them, since their derivative would live on between calls.
 */
export function findModuleWrites(
  fn: IRFunction,
  effectsOf: EffectsOf,
  precise: WriteAnalysis = analyzeWrites(fn, preciseWritesOf(effectsOf)),
): ModuleWrite[] {
  const found: ModuleWrite[] = [];
  const reported = new Set<string>();
  forEachOpInnerFirst(fn.body, (op) => {
    if (op.opcode === "call") {
      for (const w of effectsOf(calleeOf(op))?.moduleWrites ?? []) {
        const call = { callee: op.attrs.calleeName ?? "", loc: op.loc };
        found.push({ ...w, calls: [...w.calls, call] });
      }
    }
    if (op.opcode !== "global" || !isAggregate(op.results[0]!.type)) return;
    // Writes of the module-level array or object itself (its own slots, or what it holds
    // through a value read out of it), not of a local array it was stored in.
    for (const writer of precise.writersWithin(op.results[0]!)) {
      const key = `${op.attrs.callee}@${writer.loc.start}`;
      if (reported.has(key)) continue;
      reported.add(key);
      found.push({
        name: op.attrs.callee!,
        loc: writer.loc,
        calls: [],
        passed: writer.opcode === "call",
        ...(writer.opcode === "call" && !effectsOf(calleeOf(writer))
          ? { unread: calleeOf(writer) }
          : {}),
      });
    }
  });
  return found.sort((a, b) => a.loc.start - b.loc.start);
}

/** The callees' writes as points-to.ts reads them, by the callee's parameter of each operand. */
function preciseWritesOf(effectsOf: EffectsOf): PreciseWritesOf {
  return (op) => {
    const effects = effectsOf(calleeOf(op));
    if (!effects) return undefined;
    const arity = op.attrs.primal ? arityOf(op) : op.operands.length;
    return {
      writes: {
        ownWrites: effects.ownWrites ?? effects.writes,
        innerWrites: effects.innerWrites ?? effects.writes,
        aliases: effects.sharedWithResult ?? effects.aliases,
        replaces: effects.sharedWithOthers ?? effects.replaces,
        returnsOld: effects.returnsOld ?? true,
      },
      param: (i) => (i < arity ? i : shadowParam(op, i)),
    };
  };
}

/**
 * Whether a `field`/`setField` op names a field marked `@noDerivative`: what such a field
 * holds is constant for differentiation, so it does not share its object's activity.
 */
export function isNoDerivativeField(op: Op): boolean {
  if (op.opcode !== "field" && op.opcode !== "setField") return false;
  const t = op.operands[0]!.type;
  if (!isAggregate(t) || t.kind !== "object") return false;
  return t.fields.find((f) => f.name === op.attrs.field)?.noDerivative ?? false;
}

const WRITES = new Set<Op["opcode"]>(["setField", "setIndex", "addField", "addIndex"]);

function terminator(region: Region): Op {
  return region.ops[region.ops.length - 1]!;
}

export const NO_EFFECTS: Effects = {
  writes: new Set(),
  replaces: new Set(),
  grows: new Set(),
  aliases: new Set(),
  sharing: [],
  moduleWrites: [],
  readsModule: false,
  callsOut: false,
};

/** Everything either summary says (module writes once per place). */
export function joinEffects(a: Effects, b: Effects): Effects {
  const union = (x: Set<number>, y: Set<number>) => new Set([...x, ...y]);
  /** A finer set of either summary, joined (a summary without it says its coarser one). */
  const joined = (fine: "sharedWithResult" | "sharedWithOthers", coarse: "aliases" | "replaces") =>
    a[fine] || b[fine] ? { [fine]: union(a[fine] ?? a[coarse], b[fine] ?? b[coarse]) } : {};
  const writeKey = (w: Effects["moduleWrites"][number]) => `${w.name}@${w.loc.file}:${w.loc.start}`;
  const seen = new Set(a.moduleWrites.map(writeKey));
  return {
    writes: union(a.writes, b.writes),
    replaces: union(a.replaces, b.replaces),
    grows: union(a.grows, b.grows),
    aliases: union(a.aliases, b.aliases),
    sharing: joinSharing(a.sharing, b.sharing),
    ...(a.ownWrites || b.ownWrites
      ? { ownWrites: union(a.ownWrites ?? a.writes, b.ownWrites ?? b.writes) }
      : {}),
    ...(a.innerWrites || b.innerWrites
      ? { innerWrites: union(a.innerWrites ?? a.writes, b.innerWrites ?? b.writes) }
      : {}),
    ...joined("sharedWithResult", "aliases"),
    ...joined("sharedWithOthers", "replaces"),
    moduleWrites: [...a.moduleWrites, ...b.moduleWrites.filter((w) => !seen.has(writeKey(w)))],
    readsModule: a.readsModule || b.readsModule,
    callsOut: a.callsOut || b.callsOut,
    returnsOld: (a.returnsOld ?? true) || (b.returnsOld ?? true),
  };
}

/** Whether `b`, a join of `a` with something, says no more than `a`. */
export function sameEffects(a: Effects, b: Effects): boolean {
  return (
    a.writes.size === b.writes.size &&
    a.replaces.size === b.replaces.size &&
    a.grows.size === b.grows.size &&
    a.aliases.size === b.aliases.size &&
    a.sharing.length === b.sharing.length &&
    a.sharing.every((s, i) => s === b.sharing[i]) &&
    (a.ownWrites ?? a.writes).size === (b.ownWrites ?? b.writes).size &&
    (a.innerWrites ?? a.writes).size === (b.innerWrites ?? b.writes).size &&
    (a.sharedWithResult ?? a.aliases).size === (b.sharedWithResult ?? b.aliases).size &&
    (a.sharedWithOthers ?? a.replaces).size === (b.sharedWithOthers ?? b.replaces).size &&
    a.moduleWrites.length === b.moduleWrites.length &&
    a.readsModule === b.readsModule &&
    a.callsOut === b.callsOut &&
    (a.returnsOld ?? true) === (b.returnsOld ?? true)
  );
}

/**
 * Parameters that share a class in either summary share one in the join (the union of the two
 * partitions, each class named by its first parameter). A summary that does not describe a
 * parameter (the "no effects" a fixed point starts from) adds nothing for it.
 */
function joinSharing(a: number[], b: number[]): number[] {
  const n = Math.max(a.length, b.length);
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const unite = (i: number, j: number) => {
    const [x, y] = [find(i), find(j)];
    if (x !== y) parent[Math.max(x, y)] = Math.min(x, y);
  };
  for (let i = 0; i < n; i++) {
    for (const s of [a[i], b[i]]) if (s !== undefined && s !== -1) unite(i, s);
  }
  return Array.from({ length: n }, (_, i) => {
    const [x, y] = [a[i] ?? b[i], b[i] ?? a[i]];
    return x === -1 && y === -1 ? -1 : find(i);
  });
}
