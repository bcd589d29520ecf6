import type { WasmEntrySpec, WasmKind } from "../../../api/wasm-entry.js";
import { assembleWat } from "./assemble.js";
import { holdsInstances, holdsOpaque, kindOf } from "./kinds.js";
import { watModule, type FunctionSource, type WasmEntry, type WatModule } from "./module.js";
import { NotForWasm } from "./not-for-wasm.js";
import { typeText } from "../../ir/type-system.js";

// The wasm backend's one entry point: an operator call's derivative (or its two sweeps) as a
// WebAssembly module, assembled, with what the runtime needs to call it (runtime/wasm.ts) —
// or the reason it stays JavaScript.

export type { FunctionSource, WasmEntry } from "./module.js";

export type WasmBuild =
  | { ok: true; spec: WasmEntrySpec; globals: { name: string; file: string }[] }
  | { ok: false; reason: string };

export interface WasmRequest {
  source: FunctionSource;
  entry: WasmEntry;
  /** The entry's array and object parameters it writes (reverse mode's shadows), copied back out. */
  written: number[];
  /** Of `written`, those only stored into (WasmEntrySpec.writeOnly), for a tagged function. */
  writeOnly?: number[];
  /** WasmEntrySpec.returnsExisting. */
  returnsExisting?: boolean;
  /** `backend: "auto"`: wasm only for a function that loops over array elements. */
  auto: boolean;
}

export function buildWasm(request: WasmRequest): WasmBuild {
  let text: string;
  let params: WasmKind[];
  let results: WasmKind[];
  let globals: WatModule["globals"];
  let strings: string[];
  let back: WasmEntrySpec["back"];
  try {
    const module = watModule(request.source, request.entry);
    if (request.auto && !module.loopsOverArrays)
      return { ok: false, reason: "it has no loop over array elements, where wasm would pay" };
    const instance = module.results.find(holdsInstances);
    if (instance !== undefined)
      // Copied out as plain objects, they would lose their class (and its methods).
      return { ok: false, reason: `it returns an instance of a class (${typeText(instance)})` };
    text = module.text;
    globals = module.globals;
    strings = module.strings;
    params = module.params.map((t) => kindOf(t)!);
    results = module.results.map((t) => kindOf(t)!);
    if (module.back)
      back = {
        params: module.back.params.map((t) => kindOf(t)!),
        results: module.back.results.map((t) => kindOf(t)!),
      };
    const lacking = module.results.find((t) => holdsOpaque(kindOf(t)!));
    if (lacking !== undefined)
      // Copied out, its string, optional or function fields would be missing.
      return {
        ok: false,
        reason: `it returns a ${typeText(lacking)}, whose fields wasm does not all carry`,
      };
  } catch (error) {
    if (error instanceof NotForWasm) return { ok: false, reason: error.reason };
    throw error;
  }
  let bytes: Uint8Array;
  try {
    bytes = assembleWat(text);
  } catch (error) {
    // wabt missing, or a bug of the backend: the call keeps its JavaScript, and says so.
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, reason: `its WebAssembly could not be assembled: ${message}` };
  }
  const spec: WasmEntrySpec = {
    bytes: Buffer.from(bytes).toString("base64"),
    ...(back ? { back } : {}),
    params,
    results,
    written: request.written,
    ...(request.writeOnly ? { writeOnly: request.writeOnly } : {}),
    ...(request.returnsExisting ? { returnsExisting: true } : {}),
    ...(globals.length
      ? { globals: globals.map((g) => (g.copied ? { copied: g.copied } : g.type)) }
      : {}),
    ...(strings.length ? { strings } : {}),
  };
  // Their names, for the call site's reader of their values.
  return { ok: true, spec, globals: globals.map(({ name, file }) => ({ name, file })) };
}
