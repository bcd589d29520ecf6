import { printValue } from "./printer.js";
import { sameType, irTypeText } from "./type-system.js";
import { type IRFunction, type Op, type Region, type Type, type Value } from "./types.js";
import { NUMBER_OPERANDS, OPS, TERMINATORS } from "./ops.js";

// Checks the structural invariants every pass relies on. A failure here is a compiler bug,
// never a user error, so it throws with the function name and the offending op.

export class IRVerificationError extends Error {}

export function verifyFunction(fn: IRFunction): void {
  const defined = new Set<number>();
  const fail = (msg: string): never => {
    throw new IRVerificationError(`IR verification failed in @${fn.name}: ${msg}`);
  };
  const define = (v: Value) => {
    if (defined.has(v.id)) fail(`value ${printValue(v)} defined twice`);
    defined.add(v.id);
  };
  const expectTypes = (what: string, values: Value[], types: Type[]) => {
    if (values.length !== types.length)
      fail(`${what}: ${values.length} values for ${types.length} slots`);
    values.forEach((v, i) => {
      if (!sameType(v.type, types[i]!))
        fail(
          `${what}: ${printValue(v)} is ${irTypeText(v.type)}, expected ${irTypeText(types[i]!)}`,
        );
    });
  };

  // The values in scope: one set, and what a region defines leaves it at the region's end
  // (copying it per region would be quadratic in the size of the function).
  const checkRegion = (region: Region, scope: Set<number>, terminator: string): Op => {
    const own: number[] = [];
    for (const p of region.params) {
      define(p);
      scope.add(p.id);
      own.push(p.id);
    }
    region.ops.forEach((op, index) => {
      const last = index === region.ops.length - 1;
      if (TERMINATORS.has(op.opcode) !== last)
        fail(`${op.opcode} ${last ? "cannot end" : "must end"} a region`);
      for (const v of op.operands)
        if (!scope.has(v.id)) fail(`${op.opcode} uses ${printValue(v)} outside its scope`);
      const arity = OPS[op.opcode].arity;
      if (arity !== "any" && op.operands.length !== arity)
        fail(
          `${op.opcode} takes ${arity} operand${arity === 1 ? "" : "s"}, not ${op.operands.length}`,
        );
      if (NUMBER_OPERANDS.has(op.opcode))
        expectTypes(
          op.opcode,
          op.operands,
          op.operands.map(() => "number"),
        );
      checkNested(op, scope);
      for (const r of op.results) {
        define(r);
        scope.add(r.id);
        own.push(r.id);
      }
    });
    for (const id of own) scope.delete(id);
    const end = region.ops[region.ops.length - 1];
    if (!end || end.opcode !== terminator) fail(`region must end with ${terminator}`);
    return end!;
  };

  const checkNested = (op: Op, scope: Set<number>) => {
    const resultTypes = op.results.map((r) => r.type);
    if (op.opcode === "if") {
      if (op.operands.length !== 1 || op.operands[0]!.type !== "boolean")
        fail("if needs one boolean condition");
      for (const region of op.regions) {
        const y = checkRegion(region, scope, "yield");
        expectTypes("if yield", y.operands, resultTypes);
      }
    } else if (op.opcode === "loop") {
      const [before, after] = op.regions;
      if (!before || !after) return fail("loop needs before and after regions");
      const carried = before.params.map((p) => p.type);
      expectTypes("loop inits", op.operands, carried);
      const cond = checkRegion(before, scope, "condition");
      const [flag, ...forwarded] = cond.operands;
      if (!flag || flag.type !== "boolean") fail("loop condition must be boolean");
      expectTypes("loop forwarded", forwarded, resultTypes);
      expectTypes("loop after params", after.params, resultTypes);
      const y = checkRegion(after, scope, "yield");
      expectTypes("loop yield", y.operands, carried);
    } else if (op.opcode === "closure") {
      if (op.regions.length !== 1 || op.results.length !== 1 || op.operands.length > 0)
        fail("closure needs one region, one result and no operands");
      checkRegion(op.regions[0]!, scope, "return");
    } else if (op.regions.length) {
      fail(`${op.opcode} cannot own regions`);
    }
  };

  const ret = checkRegion(fn.body, new Set(), "return");
  expectTypes("return", ret.operands, fn.resultTypes);
}
