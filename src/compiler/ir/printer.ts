import { irTypeText } from "./type-system.js";
import type { IRFunction, Op, Region, Value } from "./types.js";
import { definedValues } from "./walk.js";

// A textual form of the IR, MLIR-like. It is the main debugging tool and what golden tests
// assert on, so it is deterministic and shows every value, type, region and attribute.

export function printValue(v: Value): string {
  return v.hint ? `%${v.hint}.${v.id}` : `%${v.id}`;
}

function printTyped(v: Value): string {
  return `${printValue(v)}: ${irTypeText(v.type)}`;
}

/** A function key as printed: its name, without the file (golden output is machine-independent). */
function shortKey(key: string): string {
  return key.includes("#") ? key.slice(key.lastIndexOf("#") + 1) : key;
}

/** The attributes printed inline: a field name, a constant, a callee. */
function printMainAttrs(op: Op): string {
  const { value, callee, field } = op.attrs;
  if (field !== undefined) return ` .${field}`;
  if (op.opcode === "const")
    return ` ${typeof value === "string" ? JSON.stringify(value) : Object.is(value, -0) ? "-0" : String(value)}`;
  if (callee !== undefined) return ` @${shortKey(callee)}`;
  return "";
}

/** Which attributes printMainAttrs shows for `op`. */
function mainAttrNames(op: Op): Set<string> {
  if (op.attrs.field !== undefined) return new Set(["field"]);
  if (op.opcode === "const") return new Set(["value"]);
  return new Set(op.attrs.callee !== undefined ? ["callee"] : []);
}

function printAttrValue(name: string, value: unknown): string {
  if (name === "primal" || name === "function") return `@${shortKey(String(value))}`;
  if (Array.isArray(value)) return `[${value.join(", ")}]`;
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/** Every other attribute, MLIR-style: `{frozen = [0], tapeless}`, sorted by name. */
function printOtherAttrs(op: Op): string {
  const shown = mainAttrNames(op);
  const rest = Object.entries(op.attrs)
    .filter(
      ([name, value]) =>
        !shown.has(name) && value !== undefined && value !== false && name !== "primalCall",
    )
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => (value === true ? name : `${name} = ${printAttrValue(name, value)}`));
  return rest.length > 0 ? ` {${rest.join(", ")}}` : "";
}

function printOp(op: Op, indent: string, out: string[]): void {
  // `if` and `loop` results are typed by the branches' and the loop's own headers.
  const typed = op.opcode !== "if" && op.opcode !== "loop";
  const results = op.results.length
    ? `${op.results.map(typed ? printTyped : printValue).join(", ")} = `
    : "";
  const mark = op.tangent ? " [t]" : "";
  const operands = op.operands.map(printValue).join(", ");
  if (op.opcode === "if") {
    const types = op.results.map((r) => irTypeText(r.type)).join(", ");
    out.push(`${indent}${results}if ${operands} -> (${types})${mark} {`);
    printRegionBody(op.regions[0]!, indent + "  ", out);
    out.push(`${indent}} else {`);
    printRegionBody(op.regions[1]!, indent + "  ", out);
    out.push(`${indent}}`);
    return;
  }
  if (op.opcode === "loop") {
    const [before, after] = op.regions as [Region, Region];
    const inits = before.params.map((p, i) => `${printTyped(p)} = ${printValue(op.operands[i]!)}`);
    out.push(`${indent}${results}loop (${inits.join(", ")})${mark} {`);
    printRegionBody(before, indent + "  ", out);
    out.push(`${indent}} do (${after.params.map(printTyped).join(", ")}) {`);
    printRegionBody(after, indent + "  ", out);
    out.push(`${indent}}`);
    return;
  }
  if (op.opcode === "closure") {
    out.push(`${indent}${results}closure (${op.regions[0]!.params.map(printTyped).join(", ")}) {`);
    printRegionBody(op.regions[0]!, indent + "  ", out);
    out.push(`${indent}}`);
    return;
  }
  out.push(
    `${indent}${results}${op.opcode}${printMainAttrs(op)}${operands ? " " + operands : ""}${printOtherAttrs(op)}${mark}`,
  );
}

function printRegionBody(region: Region, indent: string, out: string[]): void {
  for (const op of region.ops) printOp(op, indent, out);
}

export function printFunction(fn: IRFunction): string {
  const out: string[] = [
    `func @${fn.name}(${fn.params.map(printTyped).join(", ")}) -> ${fn.resultTypes.length === 1 ? irTypeText(fn.resultTypes[0]!) : `(${fn.resultTypes.map(irTypeText).join(", ")})`} {`,
  ];
  printRegionBody(fn.body, "  ", out);
  out.push("}");
  return out.join("\n");
}

/**
 * The activity of each value of `fn` (as Swift's activity tests print it): `[ACTIVE]` (varied
 * and useful: it gets a tangent), `[VARIED]` (depends on the differentiated inputs only),
 * `[USEFUL]` (the result depends on it only), or `[NONE]`; then the function itself.
 */
export function printActivity(
  fn: IRFunction,
  wrt: readonly number[],
  inlined: boolean,
  activity: {
    isActive(v: Value): boolean;
    isVaried(v: Value): boolean;
    isUseful(v: Value): boolean;
  },
): string {
  const lines = definedValues(fn).map((v) => {
    const mark = activity.isActive(v)
      ? "[ACTIVE]"
      : activity.isVaried(v)
        ? "[VARIED]"
        : activity.isUseful(v)
          ? "[USEFUL]"
          : "[NONE]";
    return `${mark} ${printTyped(v)}`;
  });
  return [
    `// activity of @${fn.name}${inlined ? " (its small callees inlined)" : ""} with respect to [${wrt.join(", ")}]`,
    ...lines,
    printFunction(fn),
  ].join("\n");
}
