import type {
  BinaryOpcode,
  CompareOpcode,
  Op,
  OpAttrs,
  Opcode,
  Region,
  SourceLoc,
  Type,
  UnaryOpcode,
  Value,
} from "./types.js";

/** Hands out value ids, unique within one function. */
export class ValueFactory {
  /** `next`: the first id handed out (above the ids of a function a pass adds values to). */
  constructor(private next = 0) {}
  make(type: Type, hint = ""): Value {
    return { id: this.next++, type, hint };
  }
}

/**
 * Appends ops to a current region. Passes that create IR (lower, linearize, rules) all use it,
 * so the shape of each op is decided in one place.
 */
export class Builder {
  region: Region;
  loc: SourceLoc;
  /** When set, every op built is marked as part of the tangent (differential) computation. */
  markTangent = false;
  /** Numbers held by the `const` ops built so far, for simplifications such as `dx · 1 = dx`. */
  private readonly numbers = new Map<number, number>();

  constructor(
    readonly values: ValueFactory,
    region: Region,
    loc: SourceLoc,
  ) {
    this.region = region;
    this.loc = loc;
  }

  newValue(type: Type, hint = ""): Value {
    return this.values.make(type, hint);
  }

  emit(
    opcode: Opcode,
    operands: Value[],
    resultTypes: Type[],
    attrs: OpAttrs = {},
    regions: Region[] = [],
    hints: string | string[] = "",
  ): Op {
    const hintOf = (i: number) => (typeof hints === "string" ? hints : (hints[i] ?? ""));
    const op: Op = {
      opcode,
      operands,
      results: resultTypes.map((t, i) => this.values.make(t, hintOf(i))),
      regions,
      attrs,
      loc: this.loc,
    };
    if (this.markTangent) {
      op.tangent = true;
      for (const r of op.results) r.tangent = true;
    }
    if (opcode === "const" && typeof attrs.value === "number")
      this.numbers.set(op.results[0]!.id, attrs.value);
    this.region.ops.push(op);
    return op;
  }

  /** Runs `fn` with `region` as the current region, then restores the previous one. */
  inRegion<T>(region: Region, fn: () => T): T {
    const saved = this.region;
    this.region = region;
    try {
      return fn();
    } finally {
      this.region = saved;
    }
  }

  /** Runs `fn` with tangent marking switched on or off. */
  asTangent<T>(on: boolean, fn: () => T): T {
    const saved = this.markTangent;
    this.markTangent = on;
    try {
      return fn();
    } finally {
      this.markTangent = saved;
    }
  }

  /** The number `v` is known to hold, if a `const` op of this builder defined it. */
  constantOf(v: Value): number | undefined {
    return this.numbers.get(v.id);
  }

  constant(value: number | boolean | string, hint = ""): Value {
    const type: Type =
      typeof value === "number" ? "number" : typeof value === "boolean" ? "boolean" : "string";
    return this.emit("const", [], [type], { value }, [], hint).results[0]!;
  }

  binary(opcode: BinaryOpcode, lhs: Value, rhs: Value, hint = ""): Value {
    return this.emit(opcode, [lhs, rhs], ["number"], {}, [], hint).results[0]!;
  }

  compare(opcode: CompareOpcode, lhs: Value, rhs: Value): Value {
    return this.emit(opcode, [lhs, rhs], ["boolean"]).results[0]!;
  }

  unary(opcode: UnaryOpcode, operand: Value, hint = ""): Value {
    const type: Type = opcode === "neg" ? "number" : "boolean";
    return this.emit(opcode, [operand], [type], {}, [], hint).results[0]!;
  }

  logical(opcode: "and" | "or", lhs: Value, rhs: Value): Value {
    return this.emit(opcode, [lhs, rhs], ["boolean"]).results[0]!;
  }

  select(cond: Value, a: Value, b: Value, hint = ""): Value {
    return this.emit("select", [cond, a, b], [a.type], {}, [], hint).results[0]!;
  }

  math(fn: string, args: Value[], hint = ""): Value {
    return this.emit("math", args, ["number"], { callee: fn }, [], hint).results[0]!;
  }

  /** Structured `if` whose branches are built by callbacks that return the yielded values. */
  ifElse(
    cond: Value,
    resultTypes: Type[],
    buildThen: () => Value[],
    buildElse: () => Value[],
    hints: string[] = [],
  ): Value[] {
    const thenRegion: Region = { params: [], ops: [] };
    const elseRegion: Region = { params: [], ops: [] };
    const thenValues = this.inRegion(thenRegion, buildThen);
    this.inRegion(thenRegion, () => this.emit("yield", thenValues, []));
    const elseValues = this.inRegion(elseRegion, buildElse);
    this.inRegion(elseRegion, () => this.emit("yield", elseValues, []));
    return this.emit("if", [cond], resultTypes, {}, [thenRegion, elseRegion], hints).results;
  }
}
