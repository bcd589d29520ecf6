import type {
  ArrayType,
  IRFunction,
  Op,
  OpAttrs,
  Opcode,
  Region,
  SourceLoc,
  Type,
  Value,
} from "./types.js";
import { OPS } from "./ops.js";
import { isTypedArrayName } from "./type-system.js";

// The printer's text read back into IR (printer.ts), so a test can feed a pass IR written by
// hand and check the IR it gives. Function keys come back as the names the printer shows
// (`@g`), and object types by name from the table the caller gives: the text names them only.

export class IRParseError extends Error {}

const LOC: SourceLoc = { file: "<ir>", start: 0, end: 0 };

/** Reads one function as printFunction prints it; `types` gives the object types it names. */
export function parseFunction(
  text: string,
  types: ReadonlyMap<string, Type> = new Map(),
): IRFunction {
  return new Parser(text, types).parseFunction();
}

class Parser {
  private readonly lines: string[];
  private at = 0;
  private readonly values = new Map<number, Value>();

  constructor(
    text: string,
    private readonly types: ReadonlyMap<string, Type>,
  ) {
    this.lines = text
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "" && !l.startsWith("//"));
  }

  private fail(message: string): never {
    throw new IRParseError(`line ${this.at + 1} ('${this.lines[this.at] ?? ""}'): ${message}`);
  }

  parseFunction(): IRFunction {
    const header = /^func @(\S+)\((.*)\) -> (.+) \{$/.exec(this.lines[this.at] ?? "");
    if (!header) this.fail("expected 'func @name(params) -> type {'");
    const [, name, params, result] = header as unknown as [string, string, string, string];
    this.at++;
    const fnParams = this.typedList(params).map(([v, t]) => this.define(v, t));
    const resultTypes = result.startsWith("(")
      ? splitTop(result.slice(1, -1)).map((t) => this.type(t))
      : [this.type(result)];
    const body = this.region([], ["}"]);
    return {
      key: `<ir>#${name}`,
      name,
      params: fnParams,
      captures: 0,
      resultTypes,
      body,
      loc: LOC,
    };
  }

  /** Ops up to a line in `ends` (consumed), in a region with `params`. */
  private region(params: Value[], ends: string[]): Region {
    const ops: Op[] = [];
    while (this.at < this.lines.length && !ends.some((e) => this.lines[this.at]!.startsWith(e)))
      ops.push(this.op());
    if (this.at >= this.lines.length) this.fail(`expected '${ends.join("' or '")}'`);
    return { params, ops };
  }

  private op(): Op {
    const line = this.lines[this.at]!;
    const eq = /^((?:%[\w.$]+(?:: [^=]+?)?)(?:, %[\w.$]+(?:: [^=]+?)?)*) = (.*)$/.exec(line);
    const resultText = eq ? eq[1]! : "";
    let rest = eq ? eq[2]! : line;
    const tangent = / \[t\]( \{)?$/.test(rest);
    rest = rest.replace(/ \[t\](?= \{$|$)/, "");
    this.at++;
    if (rest.startsWith("if ")) return this.ifOp(resultText, rest, tangent);
    if (rest.startsWith("loop (")) return this.loopOp(resultText, rest, tangent);
    if (rest.startsWith("closure (")) return this.closureOp(resultText, rest, tangent);
    const results = resultText ? this.typedList(resultText).map(([v, t]) => this.define(v, t)) : [];
    return this.simpleOp(rest, results, tangent);
  }

  private simpleOp(text: string, results: Value[], tangent: boolean): Op {
    let rest = text;
    let attrsText = "";
    const brace = rest.indexOf(" {");
    if (brace >= 0 && rest.endsWith("}")) {
      attrsText = rest.slice(brace + 2, -1);
      rest = rest.slice(0, brace);
    }
    const opcode = /^(\w+)/.exec(rest)?.[1] as Opcode | undefined;
    if (!opcode || !(opcode in OPS)) this.fail(`unknown opcode '${opcode ?? rest}'`);
    rest = rest.slice(opcode.length).trim();
    const attrs: OpAttrs = {};
    if (opcode === "const") {
      const [value, tail] = this.constant(rest);
      attrs.value = value;
      rest = tail;
    } else if (rest.startsWith(".")) {
      const field = /^\.(\S+)/.exec(rest)![1]!;
      attrs.field = field;
      rest = rest.slice(field.length + 1).trim();
    } else if (rest.startsWith("@")) {
      const callee = /^@(\S+)/.exec(rest)![1]!;
      attrs.callee = callee;
      rest = rest.slice(callee.length + 1).trim();
    }
    Object.assign(attrs, this.attrs(attrsText));
    const operands = rest ? splitTop(rest).map((v) => this.use(v)) : [];
    return this.make(opcode, operands, results, [], attrs, tangent);
  }

  private ifOp(resultText: string, text: string, tangent: boolean): Op {
    const m = /^if (%[\w.$]+) -> \((.*)\) \{$/.exec(text);
    if (!m) this.fail("expected 'if %c -> (types) {'");
    const types = m[2] ? splitTop(m[2]).map((t) => this.type(t)) : [];
    const thenRegion = this.region([], ["} else {"]);
    this.at++;
    const elseRegion = this.region([], ["}"]);
    this.at++;
    const results = resultText ? splitTop(resultText).map((v, i) => this.define(v, types[i]!)) : [];
    return this.make("if", [this.use(m[1]!)], results, [thenRegion, elseRegion], {}, tangent);
  }

  private loopOp(resultText: string, text: string, tangent: boolean): Op {
    const m = /^loop \((.*)\) \{$/.exec(text);
    if (!m) this.fail("expected 'loop (%p: type = %init, …) {'");
    const inits: Value[] = [];
    const beforeParams = (m[1] ? splitTop(m[1]) : []).map((binding) => {
      const [param, init] = binding.split(" = ") as [string, string];
      inits.push(this.use(init));
      const [v, t] = this.typed(param);
      return this.define(v, t);
    });
    const before = this.region(beforeParams, ["} do ("]);
    const doLine = /^\} do \((.*)\) \{$/.exec(this.lines[this.at]!);
    if (!doLine) this.fail("expected '} do (params) {'");
    this.at++;
    const afterParams = this.typedList(doLine[1]!).map(([v, t]) => this.define(v, t));
    const after = this.region(afterParams, ["}"]);
    this.at++;
    const results = resultText
      ? splitTop(resultText).map((v, i) => this.define(v, beforeParams[i]!.type))
      : [];
    return this.make("loop", inits, results, [before, after], {}, tangent);
  }

  private closureOp(resultText: string, text: string, tangent: boolean): Op {
    const m = /^closure \((.*)\) \{$/.exec(text);
    if (!m) this.fail("expected 'closure (params) {'");
    const params = this.typedList(m[1]!).map(([v, t]) => this.define(v, t));
    const body = this.region(params, ["}"]);
    this.at++;
    const results = this.typedList(resultText).map(([v, t]) => this.define(v, t));
    return this.make("closure", [], results, [body], {}, tangent);
  }

  private make(
    opcode: Opcode,
    operands: Value[],
    results: Value[],
    regions: Region[],
    attrs: OpAttrs,
    tangent: boolean,
  ): Op {
    return { opcode, operands, results, regions, attrs, loc: LOC, ...(tangent ? { tangent } : {}) };
  }

  /** A constant as printed: a number (NaN, ±Infinity, -0), a boolean or a JSON string. */
  private constant(text: string): [number | boolean | string, string] {
    if (text.startsWith('"')) {
      const end = /^"(?:[^"\\]|\\.)*"/.exec(text);
      if (!end) this.fail("unterminated string");
      return [JSON.parse(end[0]) as string, text.slice(end[0].length).trim()];
    }
    const word = /^\S+/.exec(text)?.[0] ?? this.fail("expected a constant");
    const rest = text.slice(word.length).trim();
    if (word === "true" || word === "false") return [word === "true", rest];
    const number = word === "-0" ? -0 : Number(word);
    if (Number.isNaN(number) && word !== "NaN") this.fail(`not a constant: '${word}'`);
    return [number, rest];
  }

  /** `{frozen = [0, 1], tapeless, primal = @g, method = "step"}` without the braces. */
  private attrs(text: string): OpAttrs {
    const attrs: Record<string, unknown> = {};
    for (const entry of text ? splitTop(text) : []) {
      const [key, value] = entry.split(/ = (.*)/s) as [string, string | undefined];
      if (value === undefined) attrs[key] = true;
      else if (value.startsWith("[")) {
        const inner = value.slice(1, -1).trim();
        attrs[key] = inner ? inner.split(", ").map(Number) : [];
      } else if (value.startsWith("@")) attrs[key] = value.slice(1);
      else if (value.startsWith('"')) attrs[key] = JSON.parse(value);
      else attrs[key] = value === "true" ? true : value === "false" ? false : Number(value);
    }
    return attrs as OpAttrs;
  }

  private typedList(text: string): [string, Type][] {
    return text.trim() ? splitTop(text).map((p) => this.typed(p)) : [];
  }

  private typed(text: string): [string, Type] {
    const colon = text.indexOf(": ");
    if (colon < 0) this.fail(`expected '%value: type', got '${text}'`);
    return [text.slice(0, colon), this.type(text.slice(colon + 2))];
  }

  private type(text: string): Type {
    const t = text.trim();
    if (t === "number" || t === "boolean" || t === "string" || t === "void" || t === "opaque")
      return t;
    if (isTypedArrayName(t)) return { kind: "array", storage: t, element: "number" };
    if (t.endsWith("[]")) {
      const inner = t.slice(0, -2);
      const element = this.type(
        inner.startsWith("(") && inner.endsWith(")") ? inner.slice(1, -1) : inner,
      );
      return { kind: "array", storage: "Array", element };
    }
    if (t.startsWith("[") && t.endsWith("]")) {
      const elements = splitTop(t.slice(1, -1)).map((e) => this.type(e));
      const first = elements[0];
      const uniform = first && elements.every((e) => e === first) ? first : "opaque";
      const tuple: ArrayType = { kind: "array", storage: "Array", element: uniform, elements };
      return tuple;
    }
    const named = this.types.get(t);
    if (!named) this.fail(`unknown type '${t}': give it in the table of types`);
    return named;
  }

  /** A new value `%hint.id` or `%id`. */
  private define(text: string, type: Type): Value {
    const { id, hint } = valueName(text) ?? this.fail(`not a value: '${text}'`);
    if (this.values.has(id)) this.fail(`value %${id} is defined twice`);
    const value: Value = { id, type, hint };
    this.values.set(id, value);
    return value;
  }

  private use(text: string): Value {
    const name = valueName(text.trim()) ?? this.fail(`not a value: '${text}'`);
    return this.values.get(name.id) ?? this.fail(`value %${name.id} is used before it is defined`);
  }
}

function valueName(text: string): { id: number; hint: string } | undefined {
  const m = /^%(?:([\w$]+(?:\.[\w$]+)*)\.)?(\d+)$/.exec(text);
  return m ? { id: Number(m[2]), hint: m[1] ?? "" } : undefined;
}

/** Splits at top-level ", " (not inside brackets, parentheses, braces or strings). */
function splitTop(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === "\\") i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === "[" || c === "(" || c === "{") depth++;
    else if (c === "]" || c === ")" || c === "}") depth--;
    else if (depth === 0 && c === "," && text[i + 1] === " ") {
      parts.push(text.slice(start, i));
      start = i + 2;
      i++;
    }
  }
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p !== "");
}
