import type { WasmKind } from "../../../api/wasm-entry.js";
import type { FunctionKey, IRFunction, Type } from "../../ir/types.js";
import { someOp } from "../../ir/walk.js";
import { keyFile } from "../../ir/function-key.js";
import { inlinable, inlineCalls } from "../../ir/inline.js";
import { eliminateDeadCode } from "../../ir/dce.js";
import { OVERFLOW, watFunction, type WatModuleHost } from "./function.js";
import type { AbsentArguments } from "./absent-values.js";
import { NotForWasm } from "./not-for-wasm.js";
import { expExport, OWN_EXP_GLOBAL } from "./exp.js";
import { OWN_TRIG_GLOBAL, trigFunctions } from "./trig.js";
import { kindOf } from "./kinds.js";
import { typeText } from "../../ir/type-system.js";

// One WAT module for one operator call: its entry (a derivative nabla generated, or reverse
// mode's two sweeps run one after the other) and every function they call. Memory is the
// runtime's, imported, and laid out per call (runtime/wasm.ts): the arguments from address 16
// on, then the heap of arrays the call allocates, the tape of numbers and the stack of array
// addresses reverse mode saves; the runtime sets the globals that bound each region before
// the call. Nothing grows the memory: a call that runs out traps with `$overflowed` saying
// which region, and the runtime makes a larger memory and runs it again.

/** The functions generated for an operator call, found by key. */
export interface FunctionSource {
  get(key: FunctionKey): IRFunction | undefined;
}

/** What the module's `entry` export runs. */
export type WasmEntry =
  | { kind: "function"; key: FunctionKey }
  /**
   * The sweeps of reverse mode, as one fused gradient: `entry(args…, shadows…, seed)` runs
   * `fwd(args…, shadows…)`, then `bwd(seed, inputs…)` (inputs: positions among those
   * arguments), and returns bwd's results then fwd's value.
   */
  | { kind: "sweeps"; fwd: FunctionKey; bwd: FunctionKey; bwdInputs: readonly number[] }
  /**
   * A pullback: `entry(args…, shadows…)` runs `fwd` and returns the value; `back(args…,
   * shadows…, seed?)` runs `bwd` on what it left (see pullbackModule).
   */
  | { kind: "pullback"; fwd: FunctionKey; bwd: FunctionKey; bwdInputs: readonly number[] };

export interface WatModule {
  text: string;
  /** The entry's parameter and result types. */
  params: Type[];
  results: Type[];
  /** Whether some function of it loops over array elements (what `backend: "auto"` asks). */
  loopsOverArrays: boolean;
  /**
   * The module-level values it reads (import "globals" "k" is the k-th), set per call: each
   * named as in `file`, the module of the function that reads it.
   */
  globals: { name: string; file: string; type: "f64" | "i32"; copied?: WasmKind }[];
  /** The string constants it names: id k + 1 is the k-th (WasmEntrySpec.strings). */
  strings: string[];
  /** A pullback's module: its export `back` (the backward sweep) takes and returns these. */
  back?: { params: Type[]; results: Type[] };
}

/** The module for `entry`, or NotForWasm naming what keeps it JavaScript. */
export function watModule(source: FunctionSource, entry: WasmEntry): WatModule {
  const builder = new ModuleBuilder(source);
  if (entry.kind === "function") {
    const fn = builder.need(entry.key);
    const results = fn.resultTypes.filter((t) => t !== "void");
    const name = builder.functionName(entry.key);
    if (results.length <= 1) builder.exportEntry(name);
    builder.emitAll();
    // Along k directions (`f$jvps`), k comes last (lanes.ts).
    const params: Type[] = [
      ...fn.params.map((p) => p.type),
      ...(fn.lanes ? ["number" as const] : []),
    ];
    if (results.length > 1) builder.functions.push(entryExport(name, params, results));
    return builder.finish(params, results);
  }
  if (entry.kind === "pullback") return pullbackModule(builder, entry);
  const fwd = builder.need(entry.fwd);
  const bwd = builder.need(entry.bwd);
  const fwdName = builder.functionName(entry.fwd);
  const bwdName = builder.functionName(entry.bwd);
  builder.emitAll();
  const params: Type[] = [...fwd.params.map((p) => p.type), "number"];
  const seed = `$p${params.length - 1}`;
  const bwdResults = bwd.resultTypes.filter((t) => t !== "void");
  const results: Type[] = [...bwdResults, ...fwd.resultTypes];
  const declared = params.map((t, i) => `(param $p${i} ${t === "number" ? "f64" : "i32"})`);
  const resultText = results.map((t) => (t === "number" ? "f64" : "i32")).join(" ");
  builder.functions.push(
    [
      `  (func $sweeps ${declared.join(" ")} (result ${resultText})`,
      "    (local $value f64)",
      `    (local.set $value (call ${fwdName}${fwd.params.map((_, i) => ` (local.get $p${i})`).join("")}))`,
      `    (call ${bwdName} (local.get ${seed})${entry.bwdInputs.map((k) => ` (local.get $p${k})`).join("")})`,
      "    (local.get $value)",
      "  )",
    ].join("\n"),
    entryExport("$sweeps", params, results),
  );
  return builder.finish(params, results);
}

/**
 * The module of a pullback (WasmEntry "pullback"): `entry(args…, shadows…)` runs the forward
 * sweep and returns the value, leaving the tape, the saved arrays and the heap for `back`, and
 * for an array result its shadow's address in the global `seed_at` (where the runtime puts
 * the seed); `back(args…, shadows…, seed?)` runs the backward sweep (the seed its argument
 * for a number result) and returns its results. Between the two the runtime keeps the memory
 * the forward sweep left (runtime/wasm-pullback.ts).
 */
function pullbackModule(
  builder: ModuleBuilder,
  entry: Extract<WasmEntry, { kind: "pullback" }>,
): WatModule {
  const fwd = builder.need(entry.fwd);
  const bwd = builder.need(entry.bwd);
  const result = fwd.resultTypes[0]!;
  const kind = kindOf(result);
  // The seed goes into the result's shadow: numbers, or one flat array of them.
  const flat = typeof kind === "object" && "array" in kind && kind.of === "number";
  if (result !== "number" && !flat)
    throw new NotForWasm(
      `the pullback of a function returning ${typeText(result)} is not covered yet (numbers and arrays of numbers are)`,
    );
  const fwdName = builder.functionName(entry.fwd);
  const bwdName = builder.functionName(entry.bwd);
  builder.emitAll();
  const params: Type[] = fwd.params.map((p) => p.type);
  const backParams: Type[] = result === "number" ? [...params, "number"] : params;
  const backResults = bwd.resultTypes.filter((t) => t !== "void");
  const wat = (t: Type) => (t === "number" ? "f64" : "i32");
  const declared = (types: Type[]) => types.map((t, i) => `(param $p${i} ${wat(t)})`).join(" ");
  const fwdCall = `(call ${fwdName}${params.map((_, i) => ` (local.get $p${i})`).join("")})`;
  const inputs = entry.bwdInputs.map((k) => ` (local.get $p${k})`).join("");
  const seed = result === "number" ? ` (local.get $p${params.length})` : "";
  const backText = backResults.length ? ` (result ${backResults.map(wat).join(" ")})` : "";
  builder.functions.push(
    `  (global $seed_at (export "seed_at") (mut i32) (i32.const 0))`,
    [
      `  (func (export "entry") ${declared(params)} (result ${wat(result)})`,
      ...(result === "number"
        ? [`    ${fwdCall}`]
        : [
            "    (local $shadow i32)",
            `    ${fwdCall}`,
            "    (local.set $shadow)",
            "    (global.set $seed_at (local.get $shadow))",
          ]),
      "  )",
    ].join("\n"),
    [
      `  (func $sweeps ${declared(backParams)}${backText}`,
      `    (call ${bwdName}${seed}${inputs})`,
      "  )",
    ].join("\n"),
    backResults.length > 1
      ? entryExport("$sweeps", backParams, backResults, "back")
      : `  (export "back" (func $sweeps))`,
  );
  return {
    ...builder.finish(params, [result]),
    back: { params: backParams, results: backResults },
  };
}

/**
 * The `entry` export of a function `name` of several results: it returns the first and stores
 * the k-th at `$results_at + 8 (k - 1)` (set by `setup`), because V8 makes a JavaScript array
 * of a multi-value return at every call, which costs more than a small call's work.
 */
function entryExport(name: string, params: Type[], results: Type[], exported = "entry"): string {
  const wat = (t: Type) => (t === "number" ? "f64" : "i32");
  const lines = [
    `  (func (export "${exported}") ${params.map((t) => `(param ${wat(t)})`).join(" ")} (result ${wat(results[0]!)})`,
    ...results.map((t, k) => `    (local $r${k} ${wat(t)})`),
    `    (call ${name}${params.map((_, i) => ` (local.get ${i})`).join("")})`,
    ...results.map((_, k) => `    (local.set $r${results.length - 1 - k})`),
    ...results
      .slice(1)
      .map(
        (t, k) =>
          `    (${wat(t)}.store offset=${8 * k} (global.get $results_at) (local.get $r${k + 1}))`,
      ),
    "    (local.get $r0)",
    "  )",
  ];
  return lines.join("\n");
}

class ModuleBuilder implements WatModuleHost {
  readonly functions: string[] = [];
  private readonly names = new Map<FunctionKey, string>();
  /** Function names in use: the module's own support functions', then the program's. */
  private readonly taken = new Set<string>(SUPPORT_FUNCTIONS);
  private readonly pending: [FunctionKey, IRFunction, AbsentArguments | undefined, string][] = [];
  private readonly emitted: IRFunction[] = [];
  private readonly imports = new Map<string, string>();
  private readonly globals: WatModule["globals"] = [];
  /** The string constants the code names, by text: id k + 1 is the k-th (kinds.ts). */
  private readonly strings = new Map<string, number>();
  /** The file of the function being emitted: where the names of its `global` ops live. */
  private file = "";
  private exported = "";
  /** Whether some function computes Math.exp itself (exp.ts). */
  private exp = false;
  /** The imports of Math.sin and Math.cos, once some function computes them itself (trig.ts). */
  private trig: { sin: string; cos: string } | undefined;

  constructor(private readonly source: FunctionSource) {}

  need(key: FunctionKey): IRFunction {
    const fn = this.source.get(key);
    if (!fn)
      throw new NotForWasm(`a call of '${key.split("#").pop()}', whose code nabla does not have`);
    return fn;
  }

  functionName(key: FunctionKey, absent?: AbsentArguments): string {
    // A copy per set of arguments left out: `f(x)` and `f(x, 2)` of `f(x, s = 1)` differ.
    const variant = absent
      ? `${key} without ${[...absent].map(([k, state]) => `${k}:${state}`).join(",")}`
      : key;
    const known = this.names.get(variant);
    if (known) return known;
    const fn = this.need(key);
    const base = `$${fn.name.replace(/[^A-Za-z0-9_$.]/g, "_")}`;
    let name = base;
    for (let i = 1; this.taken.has(name); i++) name = `${base}_${i}`;
    this.taken.add(name);
    this.names.set(variant, name);
    this.pending.push([key, fn, absent, name]);
    return name;
  }

  exportEntry(name: string): void {
    this.exported = name;
  }

  /** Emits the functions asked for, and those they call, once each. */
  emitAll(): void {
    for (let next = this.pending.shift(); next; next = this.pending.shift()) {
      const [key, fn, absent, name] = next;
      this.file = keyFile(key);
      let text = watFunction(this.withLeavesInlined(fn), name, this, absent);
      if (name === this.exported)
        text = text.replace(/^ {2}\(func (\S+)/, `  (func $1 (export "entry")`);
      this.functions.push(text);
      this.emitted.push(fn);
    }
  }

  /**
   * `fn` with its calls of small functions that call nothing replaced by their bodies: V8
   * (Node 20) does not inline wasm calls, and a call per pair of kmeans' points and centroids
   * costs more than the distance it computes. The JavaScript backend leaves this to V8.
   */
  private withLeavesInlined(fn: IRFunction): IRFunction {
    const inlined = inlineCalls(fn, (call) => {
      const callee = this.source.get(call.attrs.callee!);
      if (!callee || callee.adapter || callee.checkpoint || callee.stub || callee.lanes)
        return undefined;
      // Along k directions a callee's JVP runs as its own along them (lanes.ts), not inlined.
      if (fn.lanes && call.attrs.primal) return undefined;
      const leaf = !someOp(callee.body, (op) => op.opcode === "call" || op.opcode === "closure");
      return leaf && inlinable(fn, call, callee, INLINED_OPS) ? callee : undefined;
    });
    if (!inlined) return fn;
    // What a callee computed that its caller does not use (a shadow row the forward sweep
    // passes on but never reads) goes, with the loads and checks that computed it.
    eliminateDeadCode(inlined);
    return inlined;
  }

  ownExp(): string {
    this.exp = true;
    return this.mathImport("exp", 1);
  }

  ownTrig(name: "sin" | "cos"): string {
    // Both: the module exports its sin and cos, which may call the engine's.
    this.trig ??= { sin: this.mathImport("sin", 1), cos: this.mathImport("cos", 1) };
    return `$math:${name}`;
  }

  mathImport(name: string, arity: number): string {
    const local = `$Math.${name}.${arity}`;
    this.imports.set(
      local,
      `  (import "Math" "${name}" (func ${local}${" (param f64)".repeat(arity)} (result f64)))`,
    );
    return local;
  }

  moduleGlobal(name: string, type: "f64" | "i32", copied?: WasmKind): string {
    const file = this.file;
    let k = this.globals.findIndex((g) => g.name === name && g.file === file);
    if (k < 0) {
      k = this.globals.push({ name, file, type, ...(copied ? { copied } : {}) }) - 1;
      this.imports.set(
        `$global.${k}`,
        `  (import "globals" "${k}" (global $global.${k} (mut ${type})))`,
      );
    }
    return `$global.${k}`;
  }

  stringId(text: string): number {
    let id = this.strings.get(text);
    if (id === undefined) this.strings.set(text, (id = this.strings.size + 1));
    return id;
  }

  remainder(): string {
    this.imports.set(
      "$remainder",
      `  (import "js" "remainder" (func $remainder (param f64 f64) (result f64)))`,
    );
    return "$remainder";
  }

  finish(params: Type[], results: Type[]): WatModule {
    const text = [
      "(module",
      `  (import "env" "memory" (memory 1))`,
      ...this.imports.values(),
      ...REGION_GLOBALS,
      ...(this.exp ? [OWN_EXP_GLOBAL] : []),
      ...(this.trig ? [OWN_TRIG_GLOBAL] : []),
      ...SUPPORT,
      ...(this.exp ? [expExport(this.mathImport("exp", 1))] : []),
      ...(this.trig ? [trigFunctions(this.trig.sin, this.trig.cos)] : []),
      ...this.functions,
      ")",
    ].join("\n");
    const loopsOverArrays = this.emitted.some((fn) =>
      someOp(
        fn.body,
        (op) =>
          op.opcode === "loop" &&
          op.regions.some((r) => someOp(r, (inner) => inner.opcode === "index")),
      ),
    );
    const strings = [...this.strings.keys()];
    return { text, params, results, loopsOverArrays, globals: this.globals, strings };
  }
}

/**
 * The functions every module may hold besides the program's (allocation, regions, `%`, the
 * sweeps' driver): a program function of the same name gets another (`$alloc_1`).
 */
const SUPPORT_FUNCTIONS = [
  "$alloc",
  "$allocCells",
  "$allocGrowable",
  "$growBy",
  "$overflow",
  "$remainder",
  "$sweeps",
  "$toLength",
];

/** The size, in ops, of the functions inlined where they are called. */
const INLINED_OPS = 80;

/** The bounds of the memory's regions, which the runtime sets before each call. */
const REGION_GLOBALS = [
  "heap_top",
  "heap_end",
  "tape_top",
  "tape_end",
  "objects_top",
  "objects_end",
  "overflowed",
  "results_at",
].map((name) => `  (global $${name} (export "${name}") (mut i32) (i32.const 0))`);

/** The allocator, the overflow trap and the setup of a call every module has. */
const SUPPORT = [
  // One call from JavaScript before each call of the entry: cheaper than setting six globals.
  `  (func (export "setup") (param $heap i32) (param $heapEnd i32) (param $tape i32) (param $tapeEnd i32) (param $objects i32) (param $objectsEnd i32) (param $results i32)
    (global.set $heap_top (local.get $heap))
    (global.set $heap_end (local.get $heapEnd))
    (global.set $tape_top (local.get $tape))
    (global.set $tape_end (local.get $tapeEnd))
    (global.set $objects_top (local.get $objects))
    (global.set $objects_end (local.get $objectsEnd))
    (global.set $overflowed (i32.const 0))
    (global.set $results_at (local.get $results))
  )`,
  `  (func $overflow (param $region i32)
    (global.set $overflowed (local.get $region))
    unreachable
  )`,
  // An array of n cells (8 bytes each) from the heap, zeroed: the heap is reused by every call.
  // A short one by stores (memory.fill calls out of the compiled code: about 20 ns in Node 20,
  // more than zeroing a few cells; an inner gradient's adjoints are made at every iteration).
  `  (func $allocCells (param $n i32) (result i32) (local $p i32) (local $next i32) (local $q i32)
    (if (i32.gt_u (local.get $n) (i32.const 0x0fffffff)) (then (call $overflow (i32.const ${OVERFLOW.heap}))))
    (local.set $p (global.get $heap_top))
    (local.set $next (i32.add (local.get $p) (i32.add (i32.const 8) (i32.shl (local.get $n) (i32.const 3)))))
    (if (i32.gt_u (local.get $next) (global.get $heap_end)) (then (call $overflow (i32.const ${OVERFLOW.heap}))))
    (i32.store (local.get $p) (local.get $n))
    (i32.store offset=4 (local.get $p) (i32.const 0))
    (if (i32.le_u (local.get $n) (i32.const 32))
      (then
        (local.set $q (i32.add (local.get $p) (i32.const 8)))
        (block $zeroed (loop $zero
          (br_if $zeroed (i32.ge_u (local.get $q) (local.get $next)))
          (i64.store (local.get $q) (i64.const 0))
          (local.set $q (i32.add (local.get $q) (i32.const 8)))
          (br $zero))))
      (else (memory.fill (i32.add (local.get $p) (i32.const 8)) (i32.const 0) (i32.shl (local.get $n) (i32.const 3)))))
    (global.set $heap_top (local.get $next))
    (local.get $p)
  )`,
  // An array literal the function appends to (growing-arrays.ts): room for at least 4 cells,
  // its capacity kept 4 bytes into its block.
  `  (func $allocGrowable (param $n i32) (result i32) (local $p i32)
    (local.set $p (call $allocCells (select (local.get $n) (i32.const 4) (i32.gt_u (local.get $n) (i32.const 4)))))
    (i32.store offset=4 (local.get $p) (i32.load (local.get $p)))
    (i32.store (local.get $p) (local.get $n))
    (local.get $p)
  )`,
  // $by more elements at the end of array $p (one for a push; k for an element of a flat
  // tangent array along k directions, lanes.ts): when it is full, its capacity doubles (or
  // grows to what is needed), in place if its block is the heap's last, else in a new block it
  // moves to. Returns its address.
  `  (func $growBy (param $p i32) (param $by i32) (result i32) (local $n i32) (local $room i32) (local $end i32) (local $q i32) (local $need i32)
    (local.set $n (i32.load (local.get $p)))
    (local.set $room (i32.load offset=4 (local.get $p)))
    (local.set $need (i32.add (local.get $n) (local.get $by)))
    (if (i32.gt_u (local.get $need) (i32.const 0x0fffffff)) (then (call $overflow (i32.const ${OVERFLOW.heap}))))
    (if (i32.gt_u (local.get $need) (local.get $room)) (then
      (local.set $end (i32.add (local.get $p) (i32.add (i32.const 8) (i32.shl (local.get $room) (i32.const 3)))))
      (local.set $room (i32.shl (local.get $room) (i32.const 1)))
      (if (i32.lt_u (local.get $room) (local.get $need)) (then (local.set $room (local.get $need))))
      (if (i32.gt_u (local.get $room) (i32.const 0x0fffffff)) (then (call $overflow (i32.const ${OVERFLOW.heap}))))
      (if (i32.eq (local.get $end) (global.get $heap_top))
        (then
          (local.set $end (i32.add (local.get $p) (i32.add (i32.const 8) (i32.shl (local.get $room) (i32.const 3)))))
          (if (i32.gt_u (local.get $end) (global.get $heap_end)) (then (call $overflow (i32.const ${OVERFLOW.heap}))))
          (global.set $heap_top (local.get $end)))
        (else
          (local.set $q (call $allocCells (local.get $room)))
          (memory.copy (i32.add (local.get $q) (i32.const 8)) (i32.add (local.get $p) (i32.const 8)) (i32.shl (local.get $n) (i32.const 3)))
          (local.set $p (local.get $q))))
      (i32.store offset=4 (local.get $p) (local.get $room))))
    (i32.store (local.get $p) (local.get $need))
    (local.get $p)
  )`,
  // `new Float64Array(n)`: n must be a length (JavaScript throws a RangeError otherwise).
  `  (func $alloc (param $n f64) (result i32)
    (call $allocCells (call $toLength (local.get $n)))
  )`,
  `  (func $toLength (param $n f64) (result i32) (local $k i32)
    (local.set $k (i32.trunc_sat_f64_u (local.get $n)))
    (if (f64.ne (f64.convert_i32_u (local.get $k)) (local.get $n)) (then unreachable))
    (local.get $k)
  )`,
];
