import type { WasmKind } from "../api/wasm-entry.js";

// Copying objects into wasm memory is most of a call whose arguments are arrays of small
// objects ({ x, y, z }, a class of four numbers): read field by field with the field's name
// in a variable, each read is a lookup V8 cannot specialize. For an object whose fields are
// all numbers, booleans or opaque (a "leaf"), a function written for its fields reads them
// by constant names instead, which V8 compiles to loads at fixed offsets. Where the page's
// Content-Security-Policy forbids `new Function`, the caller copies field by field as before.

/** Writes a leaf object's block at `address` (kinds.ts's layout); throws `NotCopyable` as the caller does. */
export type LeafCopier = (
  object: Record<string, unknown>,
  f64: Float64Array,
  i32: Int32Array,
  address: number,
) => void;

type Fields = [string, WasmKind][];

const leaves = new WeakMap<Fields, boolean>();

/** Whether every field of an object kind is a number, a boolean or opaque, optional or not. */
export function isLeaf(fields: Fields): boolean {
  let leaf = leaves.get(fields);
  if (leaf === undefined) {
    leaf = fields.every(([, kind]) => {
      const k = typeof kind === "object" && "optional" in kind ? kind.optional : kind;
      return k === "number" || k === "boolean" || k === "opaque";
    });
    leaves.set(fields, leaf);
  }
  return leaf;
}

const made = new WeakMap<Fields, LeafCopier | null>();
let codegen = true;

/** The copier of a leaf object kind, made once per kind; undefined when not a leaf or not possible here. */
export function leafCopier(fields: Fields, NotCopyable: new () => Error): LeafCopier | undefined {
  const known = made.get(fields);
  if (known !== undefined) return known ?? undefined;
  let copier: LeafCopier | null = null;
  if (codegen && isLeaf(fields)) {
    try {
      copier = (new Function("NotCopyable", source(fields)) as (nc: unknown) => LeafCopier)(
        NotCopyable,
      );
    } catch {
      codegen = false;
    }
  }
  made.set(fields, copier);
  return copier ?? undefined;
}

/** The copier's body: one constant-name read per field, checked, then stored in its cell. */
function source(fields: Fields): string {
  const lines = ["return function (o, f64, i32, a) {", "  let p = 0, v;"];
  fields.forEach(([name, kind], k) => {
    const optional = typeof kind === "object" && "optional" in kind;
    const type = optional ? (kind as { optional: WasmKind }).optional : kind;
    const read = `v = o[${JSON.stringify(name)}];`;
    const f64Cell = `f64[(a + ${8 + 8 * k}) >> 3]`;
    const i32Cell = `i32[(a + ${8 + 8 * k}) >> 2]`;
    const store =
      type === "number"
        ? `if (typeof v !== "number") throw new NotCopyable(); ${f64Cell} = v;`
        : type === "boolean"
          ? `if (typeof v !== "boolean") throw new NotCopyable(); ${i32Cell} = v ? 1 : 0;`
          : `${i32Cell} = 0;`;
    if (type === "opaque") lines.push(`  ${store}`);
    else if (optional)
      lines.push(
        `  ${read} if (v === undefined) ${type === "number" ? `${f64Cell} = NaN` : `${i32Cell} = 0`}; else { ${store} p |= ${1 << k}; }`,
      );
    else lines.push(`  ${read} ${store}`);
  });
  lines.push(`  i32[a >> 2] = ${fields.length};`, "  i32[(a + 4) >> 2] = p;", "};");
  return lines.join("\n");
}
