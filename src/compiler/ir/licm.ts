import { type IRFunction, type Op, type Region } from "./types.js";
import { COMPUTATIONS } from "./ops.js";
import { definedInside } from "./value-ids.js";

// Loop-invariant code motion for pure arithmetic: an op at the top level of a loop's regions
// whose operands all come from outside the loop moves before it. The backward sweep computes
// `i * n + j` in its inner loop; `i * n` then runs once per row, as a hand-written loop would.
// Memory reads stay where they are (a store in the loop may change what they read).

export function hoistLoopInvariants(fn: IRFunction): void {
  const visit = (region: Region) => {
    for (const op of [...region.ops]) {
      op.regions.forEach(visit);
      if (op.opcode === "loop") hoistFrom(op, region);
    }
  };
  visit(fn.body);
}

function hoistFrom(loop: Op, region: Region): void {
  const inside = definedInside(loop);
  const moved: Op[] = [];
  for (const r of loop.regions) {
    r.ops = r.ops.filter((op) => {
      const random = op.opcode === "math" && op.attrs.callee === "random";
      const invariant =
        COMPUTATIONS.has(op.opcode) &&
        !random &&
        !op.tangent &&
        op.results.length === 1 &&
        op.operands.every((v) => !inside.has(v.id));
      if (!invariant) return true;
      moved.push(op);
      inside.delete(op.results[0]!.id);
      return false;
    });
  }
  if (moved.length > 0) region.ops.splice(region.ops.indexOf(loop), 0, ...moved);
}
