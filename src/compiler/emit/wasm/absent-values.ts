import type { IRFunction, Op, Region, Value } from "../../ir/types.js";
import { terminator } from "../../ir/walk.js";
import { holdsNumbers, optionalField } from "./kinds.js";
import { isAggregate, isArray, isObject } from "../../ir/type-system.js";

// `undefined` and `null` in wasm, where a number is an f64 and has no room for them. A default
// parameter's value is `p === undefined ? default : p`; once a small callee is inlined where
// its argument is left out, that test compares two constants. So each number value is known
// to be `undefined`, `null`, a number, or maybe any: the tests of a known value become
// constants (`===`, `!==` with undefined or null, `==`/`??`'s nullish test), and branches a
// constant test does not take leave their values out. An absent value is held as a number:
// undefined as NaN, null as 0, which is what JavaScript makes of each in arithmetic,
// comparisons, Math functions and as a condition (both falsy). Anywhere else (stored, saved
// on the tape, passed, returned, carried by a loop, compared otherwise) the function stays
// JavaScript, as it does for every value a test could not settle.
//
// An element of an array of numbers is a number in wasm (its arrays have no holes, and an
// argument's are checked as they are copied in), so it is undefined only where its index is
// out of range: `x[i + 1] ?? 0`, `xs[i - 1] ?? xs[i]` at the ends. Such a test is whether the
// index is out of range, and the read it tests, when nothing else uses it, is not made: its
// bounds check would trap, and the call run again as JavaScript, at every array's end.

export type Presence = "undefined" | "null" | "number" | "maybe";

/** Arguments a call leaves out or passes as null, by position: what its callee is made for. */
export type AbsentArguments = ReadonlyMap<number, "undefined" | "null">;

export interface AbsentValues {
  /** What each value is (numbers and booleans not listed are numbers). */
  presence(v: Value): Presence;
  /** The result of a test this settles, by the test's value id. */
  settled: Map<number, boolean>;
  /**
   * The fields of an object made with undefined in them (`new C()` makes its instance so, then
   * its constructor sets them) that are set before anything reads the object, by the object's
   * value id: wasm may hold undefined there as NaN or 0, since no one sees it.
   */
  setBeforeRead: Map<number, Set<string>>;
  /**
   * The tests of an optional field's presence (`o.f === undefined`, `o.f ?? d`'s test), by the
   * test's value id: wasm reads the field's bit in the object's presence mask (kinds.ts).
   */
  presenceTests: Map<number, PresenceTest>;
  /**
   * The tests whether an element of an array of numbers is undefined or null (`x[i + 1] ??
   * 0`'s, `p === undefined`, and `!` of them), by the test's value id: whether its index is
   * out of range, or (`absent` false) in range.
   */
  elementTests: Map<number, ElementTest>;
  /** The reads of such elements that only those tests use, by value id: not made. */
  testedOnly: Set<number>;
  /**
   * The element reads used, besides by their tests, only where a test says an element at the
   * same index is there (`const p = xs[i - 1]; if (p !== undefined) s += p`, `xs.at(-1) ??
   * 0`; the tangent `dxs[i - 1]` beside `p`), by value id, with that test: made only where it
   * says so.
   */
  guarded: Map<number, ElementTest>;
}

/** An element read, `read = array[index]`. */
export interface ElementRead {
  array: Value;
  index: Value;
  read: Value;
}

/** A test of an element read: true when it is absent (`absent`), or when it is there. */
export interface ElementTest extends ElementRead {
  absent: boolean;
}

/** A test of whether `object` has its optional field `field` (by position). */
export interface PresenceTest {
  object: Value;
  field: number;
  trueWhenPresent: boolean;
}

/** Where an absent value may go: it computes there as JavaScript's undefined (NaN) or null (0). */
export const NUMERIC_USES = new Set([
  "add",
  "sub",
  "mul",
  "div",
  "rem",
  "pow",
  "neg",
  "lt",
  "le",
  "gt",
  "ge",
  "truthy",
  "math",
  "detach",
  "withDerivative",
  "select",
  "yield",
  "condition",
]);

/**
 * `absent`: the parameters a caller leaves out (by position), for a copy of a callee made for
 * such calls (module.ts): its tests of them settle as they would inlined.
 */
export function absentValues(fn: IRFunction, absent: AbsentArguments = new Map()): AbsentValues {
  const known = new Map<number, Presence>();
  for (const [k, state] of absent) known.set(fn.params[k]!.id, state);
  const settled = new Map<number, boolean>();
  const presenceTests = new Map<number, PresenceTest>();
  /** The optional fields a test says are there, in the branch being visited ("object.field"). */
  const present = new Set<string>();
  /** The optional fields read, by value id: the object and the field's position. */
  const fieldOf = new Map<number, { object: Value; field: number }>();
  /** The elements of arrays of numbers read, by value id. */
  const elementOf = new Map<number, ElementRead>();
  const elementTests = new Map<number, ElementTest>();
  /**
   * A value is a number where a test of its field's presence says the field is there: in the
   * branch a select or an `if` takes then (`o.f === undefined ? d : o.f`).
   */
  const presentWhen = (test: Value, taken: boolean, v: Value): Presence => {
    const t = presenceTests.get(test.id);
    const read = fieldOf.get(v.id);
    const sameField = t && read && t.object.id === read.object.id && t.field === read.field;
    return sameField && t.trueWhenPresent === taken ? "number" : presence(v);
  };
  const presence = (v: Value): Presence => known.get(v.id) ?? "number";
  const join = (states: Presence[]): Presence =>
    states.length === 0 || states.some((s) => s !== states[0]) ? "maybe" : states[0]!;

  const visit = (region: Region) => {
    for (const op of region.ops) visitOp(op);
  };
  const visitOp = (op: Op) => {
    const r = op.results[0];
    // Visited again when a loop around it turns out to carry an absent value: start afresh.
    for (const v of op.results) {
      if (known.get(v.id) !== "maybe") known.delete(v.id);
      settled.delete(v.id);
    }
    switch (op.opcode) {
      case "const":
        if (op.attrs.value === undefined) known.set(r!.id, op.attrs.isNull ? "null" : "undefined");
        return;
      case "field": {
        const k = optionalField(op.operands[0]!.type, op.attrs.field!);
        if (k === undefined) return;
        fieldOf.set(r!.id, { object: op.operands[0]!, field: k });
        // Read where a test said the object has it (`if (o.f !== undefined) … o.f …`): there.
        if (!present.has(`${op.operands[0]!.id}.${k}`)) known.set(r!.id, "maybe");
        return;
      }
      case "truthy": {
        // An optional array or object is truthy when the object has it.
        const read = fieldOf.get(op.operands[0]!.id);
        if (read && isAggregate(op.operands[0]!.type))
          presenceTests.set(r!.id, { ...read, trueWhenPresent: true });
        return;
      }
      case "nondiff": {
        if (op.attrs.callee !== "===" || op.operands.length !== 2) return;
        // An optional field against undefined: its presence bit (against null: never equal,
        // as the runtime copies in only numbers or booleans for it).
        const [x, y] = op.operands as [Value, Value];
        const read = fieldOf.get(x.id) ?? fieldOf.get(y.id);
        const other = presence(fieldOf.has(x.id) ? y : x);
        if (read && (other === "undefined" || other === "null")) {
          if (other === "null") settled.set(r!.id, false);
          else presenceTests.set(r!.id, { ...read, trueWhenPresent: false });
          return;
        }
        // An element of an array of numbers against undefined: whether it is out of range.
        const element = elementOf.get(x.id) ?? elementOf.get(y.id);
        if (element && presence(elementOf.has(x.id) ? y : x) === "undefined") {
          elementTests.set(r!.id, { ...element, absent: true });
          return;
        }
        const [a, b] = op.operands.map(presence) as [Presence, Presence];
        if (a === "maybe" || b === "maybe") return;
        // Two numbers: not a test for absence (the backend does not cover it otherwise).
        if (a === "number" && b === "number") return;
        settled.set(r!.id, a === b && a !== "number");
        return;
      }
      case "index": {
        const [array, index] = op.operands as [Value, Value];
        if (isArray(array.type) && holdsNumbers(array.type) && index.type === "number")
          elementOf.set(r!.id, { array, index, read: r! });
        return;
      }
      case "nullish": {
        const read = fieldOf.get(op.operands[0]!.id);
        if (read) {
          presenceTests.set(r!.id, { ...read, trueWhenPresent: false });
          return;
        }
        const element = elementOf.get(op.operands[0]!.id);
        if (element) {
          elementTests.set(r!.id, { ...element, absent: true });
          return;
        }
        const a = presence(op.operands[0]!);
        if (a !== "maybe") settled.set(r!.id, a !== "number");
        return;
      }
      case "not": {
        const a = settled.get(op.operands[0]!.id);
        if (a !== undefined) settled.set(r!.id, !a);
        const element = elementTests.get(op.operands[0]!.id);
        if (element) elementTests.set(r!.id, { ...element, absent: !element.absent });
        const t = presenceTests.get(op.operands[0]!.id);
        if (t) presenceTests.set(r!.id, { ...t, trueWhenPresent: !t.trueWhenPresent });
        return;
      }
      case "detach":
      case "withDerivative":
        if (known.has(op.operands[0]!.id)) known.set(r!.id, presence(op.operands[0]!));
        return;
      case "select": {
        const [c, x, y] = op.operands as [Value, Value, Value];
        const taken = settled.get(c.id);
        const state =
          taken === undefined
            ? join([presentWhen(c, true, x), presentWhen(c, false, y)])
            : presence(taken ? x : y);
        if (state !== "number") known.set(r!.id, state);
        return;
      }
      case "if": {
        const t = presenceTests.get(op.operands[0]!.id);
        op.regions.forEach((region, b) => {
          const key = t && (b === 0) === t.trueWhenPresent && `${t.object.id}.${t.field}`;
          const added = key && !present.has(key);
          if (added) present.add(key);
          visit(region);
          if (added) present.delete(key);
        });
        const taken = settled.get(op.operands[0]!.id);
        const test = op.operands[0]!;
        const branches = taken === undefined ? ([0, 1] as const) : ([taken ? 0 : 1] as const);
        op.results.forEach((v, i) => {
          const state = join(
            branches.map((b) =>
              presentWhen(test, b === 0, terminator(op.regions[b]!).operands[i]!),
            ),
          );
          if (state !== "number") known.set(v.id, state);
        });
        return;
      }
      case "loop": {
        // A value carried around a loop that starts or becomes absent: maybe anything. Each
        // carried value on its own (a loop's counter stays a number when its result may not),
        // until none changes; visited again each time ("maybe" stays), for what the body
        // makes of them.
        const [before, after] = op.regions as [Region, Region];
        const widen = (targets: Value[], from: (k: number) => Value[]): boolean => {
          let changed = false;
          targets.forEach((t, k) => {
            if (known.get(t.id) === "maybe") return;
            if (from(k).every((v) => presence(v) === "number")) return;
            known.set(t.id, "maybe");
            changed = true;
          });
          return changed;
        };
        op.regions.forEach(visit);
        for (;;) {
          const yielded = terminator(after).operands;
          const forwarded = terminator(before).operands.slice(1);
          const entering = widen(before.params, (k) => [op.operands[k]!, yielded[k]!]);
          const leaving = widen(after.params, (k) => [forwarded[k]!]);
          widen(op.results, (k) => [forwarded[k]!]);
          if (!entering && !leaving) return;
          op.regions.forEach(visit);
        }
      }
      default:
        op.regions.forEach(visit);
    }
  };
  visit(fn.body);
  return {
    presence,
    settled,
    presenceTests,
    setBeforeRead: fieldsSetBeforeRead(fn),
    elementTests,
    ...testedReads(fn, elementOf, elementTests),
  };
}

/**
 * The element reads of `fn` whose every use is one of `tests` (AbsentValues.testedOnly), and
 * those whose other uses are all inside the branch of an `if` where one test of an element at
 * the same index says it is there (AbsentValues.guarded).
 */
function testedReads(
  fn: IRFunction,
  elementOf: Map<number, ElementRead>,
  tests: Map<number, ElementTest>,
): { testedOnly: Set<number>; guarded: Map<number, ElementTest> } {
  const testedOnly = new Set<number>();
  const guarded = new Map<number, ElementTest>();
  if (tests.size === 0) return { testedOnly, guarded };
  const tested = new Set([...tests.values()].map((t) => t.read.id));
  /** Per element read, the `if`s around each op using it other than its own tests. */
  const uses = new Map<number, { op: Op; region: number }[][]>();
  const visit = (region: Region, around: { op: Op; region: number }[]): void => {
    for (const op of region.ops) {
      const test = op.opcode !== "not" ? tests.get(op.results[0]?.id ?? -1) : undefined;
      for (const v of op.operands)
        if (elementOf.has(v.id) && test?.read.id !== v.id)
          uses.set(v.id, [...(uses.get(v.id) ?? []), around]);
      op.regions.forEach((inner, k) => visit(inner, [...around, { op, region: k }]));
    }
  };
  visit(fn.body, []);
  for (const [id, read] of elementOf) {
    const others = uses.get(id) ?? [];
    if (others.length === 0) {
      if (tested.has(id)) testedOnly.add(id);
      continue;
    }
    /** The test of an element at the same index whose branch `region` of `op` has it there. */
    const guard = ({ op, region }: { op: Op; region: number }) => {
      const test = op.opcode === "if" ? tests.get(op.operands[0]!.id) : undefined;
      return test && test.index === read.index && region === (test.absent ? 1 : 0)
        ? test
        : undefined;
    };
    const first = others[0]!.map(guard).find((t) => t !== undefined);
    if (
      first &&
      others.every((around) => around.some((place) => guard(place)?.read === first.read))
    )
      guarded.set(id, first);
  }
  return { testedOnly, guarded };
}

/**
 * For each object literal holding undefined: which of its fields the ops right after it set
 * before the object is read or passed on (reading a field already set is allowed). The scan
 * stops at the first other use, and at any op with regions that uses it.
 */
function fieldsSetBeforeRead(fn: IRFunction): Map<number, Set<string>> {
  const result = new Map<number, Set<string>>();
  const uses = (op: Op, v: Value): boolean =>
    op.operands.some((o) => o.id === v.id) ||
    op.regions.some((r) => r.ops.some((inner) => uses(inner, v)));
  const visit = (region: Region) => {
    region.ops.forEach((op, at) => {
      op.regions.forEach(visit);
      const object = op.results[0];
      if (op.opcode !== "literal" || !object || !isObject(object.type)) return;
      const set = new Set<string>();
      for (const next of region.ops.slice(at + 1)) {
        if (!uses(next, object)) continue;
        const [target, value] = next.operands;
        const field = next.attrs.field!;
        if (next.opcode === "setField" && target?.id === object.id && value?.id !== object.id)
          set.add(field);
        else if (next.opcode !== "field" || !set.has(field) || next.regions.length > 0) break;
      }
      result.set(object.id, set);
    });
  };
  visit(fn.body);
  return result;
}
