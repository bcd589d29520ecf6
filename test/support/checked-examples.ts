// Code examples in the docs that check their own values: a line `expression; // → value`
// (or `const x = expression; // → value`) checks what the expression gives — numbers to 1e-9,
// relative; arrays, typed arrays and objects element by element — and `// ≈ value` checks it
// to the digits shown. Used for the guide's runnable blocks and the doc comments' @examples.

const CHECKED = /^(\s*)(?:(const|let) ([\w$]+) = )?(.+?);\s*\/\/ ([→≈]) (.+)$/;

/**
 * The example with its checked lines turned into calls of `$check` (appended); line i of
 * `source` is line `first + i` of `file`.
 */
export function withChecks(source: string, file: string, first: number): string {
  const lines = source.split("\n").map((text, i) => {
    const m = CHECKED.exec(text);
    if (!m) return text;
    const [, indent, kind, name, expression, mark, expected] = m;
    const decimals = Math.max(0, ...[...expected!.matchAll(/\d\.(\d+)/g)].map((d) => d[1]!.length));
    const tolerance = mark === "≈" ? `-${0.5 * 10 ** -decimals}` : "1e-9";
    const at = JSON.stringify(`${file}:${first + i}`);
    const check = (actual: string) => `$check(${actual}, ${expected}, ${tolerance}, ${at});`;
    return kind
      ? `${indent}${kind} ${name} = ${expression}; ${check(name!)}`
      : `${indent}${check(expression!)}`;
  });
  return `${lines.join("\n")}\n${CHECK_FUNCTION}`;
}

/** Deep comparison; a negative tolerance is absolute, a positive one relative. */
const CHECK_FUNCTION = `
function $check(actual: unknown, expected: unknown, tolerance: number, where: string): void {
  const close = (a: number, e: number) =>
    Number.isNaN(e)
      ? Number.isNaN(a)
      : !Number.isFinite(e)
        ? a === e
        : Math.abs(a - e) <= (tolerance < 0 ? -tolerance : tolerance * Math.max(1, Math.abs(a), Math.abs(e)));
  const same = (a: any, e: any): boolean => {
    if (typeof e === "number") return typeof a === "number" && close(a, e);
    if (Array.isArray(e))
      return (Array.isArray(a) || ArrayBuffer.isView(a)) && a.length === e.length && e.every((x: unknown, i: number) => same(a[i], x));
    if (e !== null && typeof e === "object") {
      if (a === null || typeof a !== "object" || Array.isArray(a)) return false;
      const keys = Object.keys(e);
      return keys.length === Object.keys(a).length && keys.every((k) => same(a[k], e[k]));
    }
    return Object.is(a, e);
  };
  if (!same(actual, expected)) {
    const show = (v: unknown) => JSON.stringify(v, (_, x) => (ArrayBuffer.isView(x) ? [...(x as Float64Array)] : x));
    throw new Error(where + ": expected " + show(expected) + ", got " + show(actual));
  }
}
`;
