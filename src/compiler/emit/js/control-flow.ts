import type { Op, Region, SourceLoc, Value } from "../../ir/types.js";
import * as js from "./expression.js";
import { MAX_INLINE_DEPTH, type Expr } from "./expression.js";
import type { LaneEmitter } from "./lane-emitter.js";
import type { EmittedLine, EmitterState } from "./emitted.js";

// Structured control flow as JavaScript: an `if` with results becomes a conditional
// expression when both branches are empty, else `let`s assigned in each branch; a `loop`
// becomes `while`, its carried values `let`s updated as a parallel move at the end of each
// iteration (and of its test, when the test region computes anything).

/** What control-flow emission uses of the function emitter (function.ts). */
export interface FlowHost extends EmitterState {
  /** How deep each inlined expression nests others (see MAX_INLINE_DEPTH). */
  readonly depths: Map<number, number>;
  /** Every inlined value that reads memory. */
  readonly memoryReads: Set<number>;
  /** How often, and in which region, each value is used. */
  readonly useCount: Map<number, number>;
  readonly useRegion: Map<number, Region>;
  /** Lane emission, in a JVP along k directions (see lane-emitter.ts). */
  readonly lanes: LaneEmitter | undefined;
  alias(v: Value, existing: string): void;
  isLane(v: Value): boolean;
  inlineDepth(operands: Value[]): number;
  /** Emits the ops of a region. */
  region(region: Region): void;
}

/** Emits a region's ops into a separate buffer and returns them with its terminator. */
function capture(
  host: FlowHost,
  region: Region,
  keepLanes = false,
): { lines: EmittedLine[]; terminator: Op } {
  host.lanes?.flushLanes();
  const saved = host.lines.length;
  host.region(region);
  // A loop body's last lane statements may join the lane assignments of its `yield`.
  if (!keepLanes) host.lanes?.flushLanes();
  const lines = host.lines.splice(saved);
  return { lines, terminator: region.ops[region.ops.length - 1]! };
}

/** `c ? a : b` over pure operands, as `&&`/`||` when one side is a boolean literal. */
function choice(c: Expr, a: Expr, b: Expr): Expr {
  if (a.text === "false" && b.text === "true") return js.unary("!", c);
  if (a.text === "true" && b.text === "false") return c;
  if (b.text === c.text) return js.binary("&&", c, a);
  if (a.text === c.text) return js.binary("||", c, b);
  if (a.text === "false") return js.binary("&&", js.unary("!", c), b);
  if (b.text === "false") return js.binary("&&", c, a);
  if (a.text === "true") return js.binary("||", c, b);
  if (b.text === "true") return js.binary("||", js.unary("!", c), a);
  return js.conditional(c, a, b);
}

export function emitIf(host: FlowHost, op: Op, region: Region): void {
  const cond = host.ref(op.operands[0]!);
  host.indent++;
  // A branch's inlined reads are used by its own assignments (no write of the other branch
  // runs in between), so they must not be settled into the other branch.
  const pending: [number, Value][] = [];
  const branches = op.regions.map((r) => {
    const captured = capture(host, r);
    pending.push(...host.pendingReads);
    host.pendingReads.clear();
    return captured;
  });
  for (const [id, v] of pending) host.pendingReads.set(id, v);
  host.indent--;
  const [thenB, elseB] = branches as [(typeof branches)[0], (typeof branches)[0]];
  const used = op.results.filter((r) => (host.useCount.get(r.id) ?? 0) > 0);
  const lanes = op.results.some((r) => host.isLane(r));
  if (!lanes && op.results.length === 1 && thenB.lines.length === 0 && elseB.lines.length === 0) {
    const e = choice(
      cond,
      host.ref(thenB.terminator.operands[0]!),
      host.ref(elseB.terminator.operands[0]!),
    );
    const r = op.results[0]!;
    const yields = [op.operands[0]!, thenB.terminator.operands[0]!, elseB.terminator.operands[0]!];
    const depth = host.inlineDepth(yields);
    if (
      host.useCount.get(r.id) === 1 &&
      host.useRegion.get(r.id) === region &&
      depth <= MAX_INLINE_DEPTH
    ) {
      host.inlined.set(r.id, e);
      host.depths.set(r.id, depth);
      // `c ? a[0] : x` reads memory: it must not move past a write either.
      const yielded = [thenB.terminator.operands[0]!, elseB.terminator.operands[0]!];
      if (yielded.some((v) => host.memoryReads.has(v.id))) {
        host.memoryReads.add(r.id);
        host.pendingReads.set(r.id, r);
      }
    } else if (used.length) host.line(`const ${host.declare(r)} = ${e.text};`, op.loc);
    return;
  }
  const targets = op.results.map((r) =>
    host.isLane(r) ? host.lanes!.ownedBuffer(r) : host.declare(r),
  );
  const locals = targets.filter((_, i) => !host.isLane(op.results[i]!));
  if (locals.length) host.line(`let ${locals.join(", ")};`, op.loc);
  const body = (b: typeof thenB) => {
    host.lines.push(...b.lines);
    host.indent++;
    assignValues(host, op.results, targets, b.terminator.operands, b.terminator.loc);
    host.indent--;
  };
  const elseEmpty = elseB.lines.length === 0 && targets.length === 0;
  const thenEmpty = thenB.lines.length === 0 && targets.length === 0;
  if (thenEmpty && !elseEmpty) {
    host.line(`if (${js.unary("!", cond).text}) {`, op.loc);
    body(elseB);
    host.line("}", undefined);
    return;
  }
  host.line(`if (${cond.text}) {`, op.loc);
  body(thenB);
  if (!elseEmpty) {
    host.line("} else {", undefined);
    body(elseB);
  }
  host.line("}", undefined);
}

export function emitLoop(host: FlowHost, op: Op): void {
  const [before, after] = op.regions as [Region, Region];
  const cond = before.ops[before.ops.length - 1]!;
  const forwarded = cond.operands.slice(1);
  // Lanes carried by the loop live in buffers of their own, copied into before it starts.
  const carried = before.params.flatMap((p, i) => {
    if (!host.isLane(p)) return [`${host.declare(p)} = ${host.ref(op.operands[i]!).text}`];
    const n = host.lanes!.ownedBuffer(p);
    host.lanes!.laneLine(`${n}[${host.lanes!.q}] = ${host.ref(op.operands[i]!).text};`, op.loc);
    return [];
  });
  if (carried.length) host.line(`let ${carried.join(", ")};`, op.loc);
  // An after-param that just receives a before-param shares its variable.
  const separate: string[] = [];
  after.params.forEach((p, i) => {
    const f = forwarded[i]!;
    const j = before.params.indexOf(f);
    if (j === i) {
      host.alias(p, host.names.get(before.params[i]!.id)!);
    } else if (host.isLane(p)) {
      host.lanes!.ownedBuffer(p);
    } else {
      separate.push(host.declare(p));
    }
    host.alias(op.results[i]!, host.names.get(p.id)!);
  });
  if (separate.length) host.line(`let ${separate.join(", ")};`, op.loc);

  host.indent++;
  const head = capture(host, before);
  host.indent--;
  const flag = host.ref(cond.operands[0]!);
  const forwardTargets = after.params.map((p) => host.names.get(p.id)!);
  const sameVariable = (t: string, v: Value) =>
    host.isLane(v) ? !host.inlined.has(v.id) && host.names.get(v.id) === t : t === host.ref(v).text;
  if (head.lines.length === 0 && forwardTargets.every((t, i) => sameVariable(t, forwarded[i]!))) {
    host.line(`while (${flag.text}) {`, op.loc);
  } else {
    host.line("while (true) {", op.loc);
    host.lines.push(...head.lines);
    host.indent++;
    assignValues(host, after.params, forwardTargets, forwarded, cond.loc);
    host.line(`if (${js.unary("!", flag).text}) break;`, cond.loc);
    host.indent--;
  }
  host.indent++;
  const tail = capture(host, after, true);
  host.lines.push(...tail.lines);
  const targets = before.params.map((p) => host.names.get(p.id)!);
  assignValues(host, before.params, targets, tail.terminator.operands, tail.terminator.loc);
  host.lanes?.flushLanes();
  host.indent--;
  host.line("}", undefined);
}

/**
 * `targets[i] = values[i]` for the variables of `of` (if results, loop-carried values), as
 * if simultaneously: lanes first, in one loop over the lanes (a lane expression may read a
 * primal local the assignment changes; primal values never read lanes), then locals.
 */
function assignValues(
  host: FlowHost,
  of: Value[],
  targets: string[],
  values: Value[],
  loc: SourceLoc | undefined,
): void {
  const lanes = of.flatMap((v, i) => (host.isLane(v) ? [i] : []));
  // One carried value updated in place, `d = d + e · s`: skipped where s is zero.
  const only = lanes.length === 1 ? lanes[0]! : -1;
  const coefficient =
    only < 0
      ? undefined
      : host.lanes!.accumulation(
          values[only]!,
          (x) => !host.inlined.has(x.id) && host.names.get(x.id) === targets[only],
        );
  if (lanes.length > 0) {
    host.lanes!.guardedLanes(coefficient, () =>
      host.lanes!.laneAssign(
        lanes.map((i) => targets[i]!),
        lanes.map((i) => host.ref(values[i]!)),
        loc,
      ),
    );
    host.lanes?.flushLanes();
  }
  const locals = of.flatMap((v, i) => (host.isLane(v) ? [] : [i]));
  assign(
    host,
    locals.map((i) => targets[i]!),
    locals.map((i) => host.ref(values[i]!)),
    loc,
  );
}

/**
 * `targets[i] = values[i]` as if simultaneously (a parallel move): an assignment goes first
 * when no other pending value reads its target; a cycle is broken with one temporary.
 */
function assign(
  host: FlowHost,
  targets: string[],
  values: Expr[],
  loc: SourceLoc | undefined,
): void {
  let pending = targets
    .map((t, i) => ({ target: t, value: values[i]! }))
    .filter((a) => a.value.text !== a.target);
  while (pending.length > 0) {
    const free = pending.find((a) =>
      pending.every((other) => other === a || !other.value.refs.has(a.target)),
    );
    if (free) {
      host.line(`${free.target} = ${free.value.text};`, loc);
      pending = pending.filter((a) => a !== free);
      continue;
    }
    // Every target is read by another pending value: compute one value that reads another
    // target early (not one already computed early), so what it reads becomes free.
    const blocked = pending.find((a) =>
      pending.some((other) => other !== a && a.value.refs.has(other.target)),
    )!;
    const temp = host.declare({ id: -1, type: "number", hint: `${blocked.target}_next` });
    host.line(`const ${temp} = ${blocked.value.text};`, loc);
    blocked.value = js.name(temp);
  }
}
