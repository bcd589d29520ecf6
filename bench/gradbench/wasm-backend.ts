// The evals compiled a second time with nabla's WebAssembly backend (CompileOptions.backend
// "wasm", as `nabla run --backend wasm` does), to be timed beside the JavaScript ones. Which
// operator calls became WebAssembly is not hard-coded: the compiled module says it, in one
// comment per call that takes the backend option (src/compiler/emit/js/wasm-requests.ts and
// wasm-twin.ts), and the runtime counts the calls that ran in wasm (wasmStats).

import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { formatDiagnostics } from "../../src/compiler/diagnostics/report.js";
import { compileWithLargeStack } from "../../src/compiler/large-stack.js";
import { type WasmArrays, wasmArrays, wasmStats } from "../../src/runtime/index.js";
import { importCompiled } from "../load.js";

type Module = { [name: string]: unknown };

/** One operator call of the module, and the backend the compiler gave its derivative. */
export interface BackendSite {
  /** `gradient(logSumExp)`. */
  call: string;
  /** `lse.ts:33:10`. */
  place: string;
  backend: "wasm" | "js";
  /** What a call copies ("copies in parameters 0, 1, …"; wasm), or why it stays JavaScript. */
  detail: string;
}

export interface WasmEval {
  /** The module compiled with backend "wasm", or why there is none. */
  module: Module | string;
  /** The operator calls that take the backend option, as the module's comments say. */
  sites: BackendSite[];
  /**
   * The module, relative to the repository, when it is not the eval's own: gradbench/wasm/
   * holds evals whose driver is written for the wasm backend (a function tagged `@backend wasm`).
   */
  driver?: string;
}

const SITE =
  /^\/\/ (\w+\(.*?\)|\w+ \(@backend \w+\)) at ([^\s:]+:\d+:\d+)( \(its [^)]*\))?: (?:WebAssembly \(\d+ bytes\); per call it (.*)|JavaScript, not WebAssembly: (.*))$/;

/** The backend comments of a module compiled with a wasm backend, in the order written. */
export function backendSites(code: string): BackendSite[] {
  const sites: BackendSite[] = [];
  for (const line of code.split("\n")) {
    const m = SITE.exec(line.trim());
    if (m === null) continue;
    // A part of an operator call: a Jacobian's forward passes, a pullback's sweeps or its value.
    const call = `${m[1]!}${m[3] ?? ""}`;
    sites.push(
      m[4] !== undefined
        ? { call, place: m[2]!, backend: "wasm", detail: m[4] }
        : { call, place: m[2]!, backend: "js", detail: m[5]! },
    );
  }
  return sites;
}

/** Calls that ran in wasm, and calls of a wasm function that fell back to JavaScript. */
export interface WasmCalls {
  wasm: number;
  javascript: number;
  /** Of the calls in wasm, those that read their inputs in place (from `wasmArrays`). */
  inPlace: number;
}

/** Runs `f` and counts the wasm functions' calls it made (the runtime's wasmStats). */
export function countWasmCalls<T>(f: () => T): { value: T; calls: WasmCalls } {
  const before = { ...wasmStats };
  const value = f();
  return {
    value,
    calls: {
      wasm: wasmStats.wasm - before.wasm,
      javascript: wasmStats.javascript - before.javascript,
      inPlace: wasmStats.inPlace - before.inPlace,
    },
  };
}

/**
 * The code with its relative imports of TypeScript files (the generated code imports `./gd.ts`
 * and its own file) made imports of the .js files written beside it: a .ts URL would be
 * compiled again by nabla's hooks, with the JS backend.
 */
export function jsImports(code: string): string {
  return code.replace(/(\bfrom\s+["'])(\.{1,2}\/[^"']+)\.(?:c|m)?tsx?(["'])/g, "$1$2.js$3");
}

let loads = 0;

/**
 * Compiles `file` (and the files it imports) with backend "wasm", writes the modules to a
 * temporary folder and imports them from there: Node keeps one instance per URL, so the file
 * cannot be imported again under its own. The module's `nabla/runtime` is the same runtime
 * as the JavaScript modules' (nabla's module hooks resolve it, which importCompiled installs).
 */
export async function loadWasmEval(file: string, root: string): Promise<WasmEval> {
  const result = compileWithLargeStack({ entries: [file], backend: "wasm" });
  const errors = result.diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0 || result.outputs.size === 0) {
    const text = formatDiagnostics(errors, result.sourceText, { color: false });
    return { module: text.split(`${root}/`).join("") || "no output", sites: [] };
  }
  const dir = join(tmpdir(), `nabla-gradbench-wasm-${process.pid}-${loads++}`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "package.json"), '{ "type": "module" }\n');
    let entry = "";
    for (const [source, output] of result.outputs) {
      const target = join(dir, relative(root, source)).replace(/\.(c|m)?tsx?$/, ".js");
      mkdirSync(dirname(target), { recursive: true });
      const map = Buffer.from(JSON.stringify(output.map)).toString("base64");
      writeFileSync(
        target,
        `${jsImports(output.code)}//# sourceMappingURL=data:application/json;base64,${map}\n`,
      );
      if (source === file) entry = target;
    }
    const module = await importCompiled<Module>(entry);
    return { module, sites: backendSites(result.outputs.get(file)?.code ?? "") };
  } catch (error) {
    return { module: error instanceof Error ? error.message : String(error), sites: [] };
  } finally {
    // Imported modules stay in memory; the files are no longer needed.
    rmSync(dir, { recursive: true, force: true });
  }
}

/** |x − y| ≤ 1e-12 · max(|x|, |y|): issue 22's "identical to the JS backend within 1e-12 relative". */
export function wasmClose(x: number, y: number): boolean {
  return x === y || Math.abs(x - y) <= 1e-12 * Math.max(Math.abs(x), Math.abs(y));
}

/** A memory's room for a call's scratch space (tape, arrays made) beyond the data, in MiB. */
const SCRATCH_MEGABYTES = 256;

/**
 * An eval's prepared input with its `Float64Array`s, and arrays of them, copied into a
 * `wasmArrays` memory, as a user keeping data in wasm memory across calls would prepare it:
 * the wasm derivatives then read them in place. Plain objects and arrays are rebuilt around
 * them; anything else (numbers, class instances, `number[]`) is kept as it is.
 */
export function inWasmMemory<T>(prepared: T): T {
  const megabytes = Math.min(2048, Math.ceil(bytesOf(prepared) / 2 ** 20) + SCRATCH_MEGABYTES);
  return placed(prepared, wasmArrays({ megabytes })) as T;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;

const isRows = (v: unknown): v is Float64Array[] =>
  Array.isArray(v) && v.length > 0 && v.every((r) => r instanceof Float64Array);

function bytesOf(v: unknown): number {
  if (v instanceof Float64Array) return 8 + v.byteLength;
  if (Array.isArray(v)) return 8 + 8 * v.length + v.reduce((n: number, x) => n + bytesOf(x), 0);
  if (isPlainObject(v)) return Object.values(v).reduce((n: number, x) => n + bytesOf(x), 0);
  return 0;
}

function placed(v: unknown, memory: WasmArrays): unknown {
  if (v instanceof Float64Array) return memory.from(v);
  if (isRows(v)) return memory.rows(v);
  if (Array.isArray(v)) return v.map((x) => placed(x, memory));
  if (isPlainObject(v))
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, placed(x, memory)]));
  return v;
}
