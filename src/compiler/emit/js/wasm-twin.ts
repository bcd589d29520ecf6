import { basename } from "node:path";
import type { Backend } from "../../../api/wasm-entry.js";
import { buildWasm, type FunctionSource, type WasmEntry } from "../wasm/backend.js";
import type { EmittedLine } from "./emitted.js";

// An operator call's derivative as WebAssembly, in the JavaScript module: a function with the
// calling convention of the JavaScript derivative it stands for (the operator's wrapper calls
// it unchanged), which runs the wasm module embedded in it (runtime/wasm.ts) and falls back to
// the JavaScript derivative.

export interface WasmTwinRequest {
  backend: Exclude<Backend, "js">;
  source: FunctionSource;
  entry: WasmEntry;
  /** Its array parameters it writes (reverse mode's shadows): copied back after each call. */
  written: number[];
  /** Of `written`, those only stored into: written in place when made by wasmArrays. */
  writeOnly?: number[];
  /** What it returns may be an argument's array or object: handed back as it is, not copied. */
  returnsExisting?: boolean;
  /** The name the twin gets, and its JavaScript fallback's. */
  name: string;
  fallback: string;
  /** A fallback to declare first (reverse mode's two sweeps as one function), if any. */
  fallbackLines?: EmittedLine[];
  runtime: string;
  /** How code in this module reads module-level constant `name` (EmitNames.global). */
  global: (name: string) => string;
  /** The file of the module the twin is emitted in. */
  moduleFile: string;
  /** What the comment above the twin calls the operator call (`gradient(f) at main.ts:3`). */
  site: string;
  /**
   * A pullback (entry kind "pullback"): `fallback` is its forward sweep in JavaScript, and
   * `recompute` both sweeps in JavaScript at a seed (runtime/wasm-pullback.ts).
   */
  pullback?: { recompute: string };
}

export type WasmTwin =
  | {
      ok: true;
      lines: EmittedLine[];
      /** The module-level values it reads, each copied in per call when `copied` (arrays, objects). */
      globals: { name: string; copied: boolean }[];
    }
  | { ok: false; reason: string };

export function wasmTwin(request: WasmTwinRequest): WasmTwin {
  const built = buildWasm({
    source: request.source,
    entry: request.entry,
    written: request.written,
    ...(request.writeOnly && request.written.length ? { writeOnly: request.writeOnly } : {}),
    ...(request.returnsExisting ? { returnsExisting: true } : {}),
    auto: request.backend === "auto",
  });
  if (!built.ok) return built;
  const { name, runtime, spec } = { ...request, spec: built.spec };
  // A module-level value of another module: its name means something else here, if anything.
  const elsewhere = built.globals.find((g) => g.file !== request.moduleFile);
  if (elsewhere)
    return {
      ok: false,
      reason: `it reads the module-level value '${elsewhere.name}' of another module (${basename(elsewhere.file)})`,
    };
  // The module-level values its code reads, read before each call (a `let` may change).
  const readGlobals = built.globals.length
    ? `, () => [${built.globals.map((g) => request.global(g.name)).join(", ")}]`
    : "";
  // What a call copies, by position among the parameters of the function it stands for.
  const arrays = spec.params.flatMap((k, i) => (typeof k === "object" ? [i] : []));
  const listed = (positions: number[]) =>
    positions.length ? `parameters ${positions.join(", ")}` : "nothing";
  const copies = [
    `copies in ${listed(arrays)}`,
    ...(spec.written.length ? [`copies back ${listed(spec.written)}`] : []),
    ...(spec.results.some((k) => typeof k === "object") ? ["copies out its array results"] : []),
  ];
  // Arrays the call only reads are read in place when they are wasmArrays' (runtime/wasm-arrays.ts).
  const readOnly = arrays.filter((i) => !spec.written.includes(i));
  const writtenInPlace = spec.writeOnly ?? [];
  const inPlace =
    (readOnly.length
      ? `; the Float64Arrays of ${readOnly.length === 1 ? "parameter" : "parameters"} ${readOnly.join(", ")} made by wasmArrays are read in place`
      : "") +
    (writtenInPlace.length
      ? `; those of ${writtenInPlace.length === 1 ? "parameter" : "parameters"} ${writtenInPlace.join(", ")}, which it only stores into, are written in place`
      : "");
  const bytes = Math.ceil((spec.bytes.length * 3) / 4);
  // "auto": the faster of the twin and the JavaScript, timed over the first calls
  // (runtime/adaptive-backend.ts).
  const auto = request.backend === "auto";
  const chosen = auto ? ", or JavaScript where that runs faster (timed at the first calls)" : "";
  const comment = `// ${request.site}: WebAssembly (${bytes} bytes)${chosen}; per call it ${copies.join(", ")}${inPlace}`;
  const wasm = `${runtime}.wasmFunction(${JSON.stringify(spec)}, ${request.fallback}${readGlobals})`;
  const made = auto ? `${runtime}.adaptiveBackend(${wasm}, ${request.fallback})` : wasm;
  // Made at the first call, so a module that never calls it pays nothing; the declaration then
  // names what was made, so later calls skip this wrapper (a copy of it taken before still
  // works, through the same instance).
  const line = (text: string, indent = 0): EmittedLine => ({ text, indent, loc: undefined });
  // A pullback (runtime/wasm-pullback.ts): `name()` is the object of its two halves.
  const lines = request.pullback
    ? [
        line(
          `// ${request.site}: WebAssembly (${bytes} bytes); per call it ${copies.join(", ")} (taken: the forward sweep, whose memory it keeps; at each seed: the backward sweep on it, the arguments copied in again)`,
        ),
        ...(request.fallbackLines ?? []),
        line(`var ${name}$instance;`),
        line(`function ${name}() {`),
        line(
          `return ${name}$instance ??= ${runtime}.wasmPullback(${JSON.stringify(spec)}, ${request.fallback}, ${request.pullback.recompute}${readGlobals});`,
          1,
        ),
        line("}"),
      ]
    : [
        line(comment),
        ...(request.fallbackLines ?? []),
        line(`var ${name}$instance;`),
        line(`function ${name}(...args) {`),
        line(`${name} = ${name}$instance ??= ${made};`, 1),
        line(`return ${name}$instance(...args);`, 1),
        line("}"),
      ];
  const globals = built.globals.map((g, k) => ({
    name: g.name,
    copied: typeof spec.globals?.[k] === "object",
  }));
  return { ok: true, lines, globals };
}
