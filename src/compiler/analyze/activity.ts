import type { IRFunction, Op, Region, Value } from "../ir/types.js";

// Activity analysis (seed 000): a value is *varied* when it depends on a differentiated
// parameter, *useful* when the result depends on it, and *active* when both. Only active
// values get tangent code. Booleans and strings never carry derivatives; they are varied or
// useful only through non-differentiable ops, so that an active number laundered through
// `String(x)` or `x | 0` is caught instead of silently losing its derivative.

export interface Activity {
  varied: Set<number>;
  useful: Set<number>;
  isActive(v: Value): boolean;
  /** Non-differentiable ops an active value flows through: each is a user error. */
  blocked: Op[];
}

export function analyzeActivity(fn: IRFunction, wrt: number[]): Activity {
  const varied = new Set<number>(wrt.map((i) => fn.params[i]!.id));
  const useful = new Set<number>();
  let changed = true;
  const mark = (set: Set<number>, v: Value) => {
    if (!set.has(v.id)) {
      set.add(v.id);
      changed = true;
    }
  };
  const carries = (op: Op, v: Value) => v.type === "number" || op.opcode === "nondiff";

  const forward = (region: Region) => {
    for (const op of region.ops) {
      if (op.opcode === "if") {
        op.regions.forEach(forward);
        op.results.forEach((r, i) => {
          if (op.regions.some((reg) => varied.has(terminator(reg).operands[i]!.id)))
            mark(varied, r);
        });
      } else if (op.opcode === "loop") {
        const [before, after] = op.regions as [Region, Region];
        op.operands.forEach((init, i) => varied.has(init.id) && mark(varied, before.params[i]!));
        forward(before);
        const forwarded = terminator(before).operands.slice(1);
        forwarded.forEach((f, i) => {
          if (varied.has(f.id)) {
            mark(varied, after.params[i]!);
            mark(varied, op.results[i]!);
          }
        });
        forward(after);
        terminator(after).operands.forEach(
          (y, i) => varied.has(y.id) && mark(varied, before.params[i]!),
        );
      } else if (
        op.opcode !== "const" &&
        op.opcode !== "global" &&
        op.opcode !== "extern" &&
        op.opcode !== "detach"
      ) {
        if (op.operands.some((v) => varied.has(v.id))) {
          for (const r of op.results) if (carries(op, r)) mark(varied, r);
        }
      }
    }
  };

  const backward = (region: Region) => {
    for (let k = region.ops.length - 1; k >= 0; k--) {
      const op = region.ops[k]!;
      if (op.opcode === "return") {
        for (const v of op.operands) if (v.type === "number") mark(useful, v);
      } else if (op.opcode === "if") {
        op.results.forEach((r, i) => {
          if (useful.has(r.id))
            for (const reg of op.regions) mark(useful, terminator(reg).operands[i]!);
        });
        op.regions.forEach(backward);
      } else if (op.opcode === "loop") {
        const [before, after] = op.regions as [Region, Region];
        const forwarded = terminator(before).operands.slice(1);
        op.results.forEach((r, i) => {
          if (useful.has(r.id) || useful.has(after.params[i]!.id)) mark(useful, forwarded[i]!);
        });
        backward(after);
        backward(before);
        const yields = terminator(after).operands;
        before.params.forEach((p, i) => {
          if (useful.has(p.id)) {
            mark(useful, op.operands[i]!);
            mark(useful, yields[i]!);
          }
        });
      } else if (op.opcode !== "detach" && op.results.some((r) => useful.has(r.id))) {
        for (const v of op.operands) if (carries(op, v) || op.opcode === "nondiff") mark(useful, v);
      }
    }
  };

  while (changed) {
    changed = false;
    forward(fn.body);
    backward(fn.body);
  }

  // Report where the derivative is first lost: not a later op of the same chain
  // (`parseFloat(String(x))` is one error, at `String`).
  const blocked: Op[] = [];
  const blockedResults = new Set<number>();
  const findBlocked = (region: Region) => {
    for (const op of region.ops) {
      const variedOperands = op.operands.filter((v) => varied.has(v.id));
      if (
        op.opcode === "nondiff" &&
        variedOperands.length > 0 &&
        op.results.some((r) => useful.has(r.id))
      ) {
        if (!variedOperands.every((v) => blockedResults.has(v.id))) blocked.push(op);
        for (const r of op.results) blockedResults.add(r.id);
      }
      op.regions.forEach(findBlocked);
    }
  };
  findBlocked(fn.body);

  return {
    varied,
    useful,
    blocked,
    isActive: (v) => v.type === "number" && varied.has(v.id) && useful.has(v.id),
  };
}

function terminator(region: Region): Op {
  return region.ops[region.ops.length - 1]!;
}
