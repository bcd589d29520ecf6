// JavaScript expression text with its precedence, so emitted code needs only the parentheses
// JavaScript requires. `refs` lists the variables an expression reads, to order assignments.

export interface Expr {
  text: string;
  prec: number;
  refs: Set<string>;
}

export const PREC = {
  primary: 20,
  unary: 17,
  exponent: 16,
  multiplicative: 15,
  additive: 14,
  shift: 13,
  relational: 12,
  equality: 11,
  bitAnd: 10,
  bitXor: 9,
  bitOr: 8,
  and: 7,
  or: 6,
  conditional: 4,
} as const;

export function name(text: string): Expr {
  return { text, prec: PREC.primary, refs: new Set([text]) };
}

export function literal(value: number | boolean | string): Expr {
  if (typeof value === "string")
    return { text: JSON.stringify(value), prec: PREC.primary, refs: new Set() };
  if (typeof value === "boolean")
    return { text: String(value), prec: PREC.primary, refs: new Set() };
  if (Object.is(value, -0)) return { text: "-0", prec: PREC.unary, refs: new Set() };
  const text = String(value);
  return { text, prec: text.startsWith("-") ? PREC.unary : PREC.primary, refs: new Set() };
}

/** `e` as an operand needing at least precedence `min`. */
export function operand(e: Expr, min: number): string {
  return e.prec < min ? `(${e.text})` : e.text;
}

function union(...exprs: Expr[]): Set<string> {
  const refs = new Set<string>();
  for (const e of exprs) for (const r of e.refs) refs.add(r);
  return refs;
}

const BINARY_PREC: Record<string, number> = {
  "**": PREC.exponent,
  "*": PREC.multiplicative,
  "/": PREC.multiplicative,
  "%": PREC.multiplicative,
  "+": PREC.additive,
  "-": PREC.additive,
  "<<": PREC.shift,
  ">>": PREC.shift,
  ">>>": PREC.shift,
  "<": PREC.relational,
  instanceof: PREC.relational,
  in: PREC.relational,
  "<=": PREC.relational,
  ">": PREC.relational,
  ">=": PREC.relational,
  "===": PREC.equality,
  "!==": PREC.equality,
  "&": PREC.bitAnd,
  "^": PREC.bitXor,
  "|": PREC.bitOr,
  "&&": PREC.and,
  "||": PREC.or,
};

export function binary(op: string, a: Expr, b: Expr): Expr {
  const p = BINARY_PREC[op]!;
  // `**` is right-associative and its left operand may not be a unary expression.
  const left = op === "**" ? operand(a, PREC.unary + 1) : operand(a, p);
  const right = op === "**" ? operand(b, p) : operand(b, p + 1);
  return { text: `${left} ${op} ${right}`, prec: p, refs: union(a, b) };
}

export function unary(op: string, a: Expr): Expr {
  const inner = operand(a, PREC.unary);
  // Avoid `- -x` and `--x` turning into a decrement.
  const text =
    (op === "-" || op === "+") && inner.startsWith(op) ? `${op}(${inner})` : `${op}${inner}`;
  return { text, prec: PREC.unary, refs: union(a) };
}

export function call(callee: string, args: Expr[]): Expr {
  return {
    text: `${callee}(${args.map((a) => operand(a, PREC.conditional - 2)).join(", ")})`,
    prec: PREC.primary,
    refs: union(...args),
  };
}

export function conditional(c: Expr, a: Expr, b: Expr): Expr {
  return {
    text: `${operand(c, PREC.or)} ? ${operand(a, PREC.conditional)} : ${operand(b, PREC.conditional)}`,
    prec: PREC.conditional,
    refs: union(c, a, b),
  };
}

/** `o.name` */
export function member(o: Expr, name: string): Expr {
  // A field name is the user's text (`{ "a-b": x }`): only an identifier goes in bare.
  const access = IDENTIFIER.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
  return { text: `${operand(o, PREC.primary)}${access}`, prec: PREC.primary, refs: union(o) };
}

/** A name that can follow `.` or stand as an object literal's key as it is. */
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** `a[i]` */
export function element(a: Expr, i: Expr): Expr {
  return { text: `${operand(a, PREC.primary)}[${i.text}]`, prec: PREC.primary, refs: union(a, i) };
}

/** `[a, b]` */
export function arrayLiteral(items: Expr[]): Expr {
  return {
    text: `[${items.map((e) => operand(e, PREC.conditional - 2)).join(", ")}]`,
    prec: PREC.primary,
    refs: union(...items),
  };
}

/** `{ x: a, y: b }` */
export function objectLiteral(entries: [string, Expr][]): Expr {
  const body = entries
    .map(
      ([k, e]) =>
        `${IDENTIFIER.test(k) ? k : JSON.stringify(k)}: ${operand(e, PREC.conditional - 2)}`,
    )
    .join(", ");
  return {
    text: entries.length ? `{ ${body} }` : "{}",
    prec: PREC.primary,
    refs: union(...entries.map(([, e]) => e)),
  };
}

/** Any other expression text, with the variables it reads. */
export function raw(text: string, prec: number, refs: Expr[]): Expr {
  return { text, prec, refs: union(...refs) };
}

/**
 * The deepest an inlined expression nests others; a deeper one becomes a `const`. V8 parses
 * nested expressions by recursion and gives up at about a thousand levels, and a derivative
 * can nest deeper than the code it comes from (`x * (x * …)` gives `dx * t + (dx * t + …)`).
 */
export const MAX_INLINE_DEPTH = 64;
