import { basename, dirname, relative } from "node:path";
import { fixedResultShape } from "./fixed-result-shape.js";
import type { Forwarding } from "../../resolve/attachments.js";
import type { ValueOperatorUse } from "../../resolve/requests.js";
import { higherOrderWrapper } from "./higher-order.js";
import { severalJacobianWrapper } from "./several-jacobian.js";
import { severalHessianWrapper } from "./several-hessian.js";
import { matrixJacobianWrapper } from "./matrix-jacobian.js";
import {
  derivativeKey,
  derivedPrimalKey,
  jvpKey,
  lanesKey,
  staticMethodName,
  THIS_CAPTURE,
  type DerivativeKind,
} from "../../ir/names.js";
import type { DerivativeTable } from "../../differentiate/derivative-table.js";
import { emitFunction, emitUnavailable, hoistedAdjustments } from "./function.js";
import { hoistedArrowFields } from "./written-function.js";
import { assembleModule, type ModuleOutput, type Replacement } from "./module.js";
import { undoesStores } from "./store-journals.js";
import { operatorWrapper } from "./operators.js";
import { privateNameRewrites, privateNamesWritten } from "./private-names.js";
import { emitRuleAdapter } from "./rule-adapter.js";
import { emitCheckpointSweep } from "./checkpoint.js";
import { ModuleNames } from "./module-names.js";
import { zerosLike } from "./aggregates.js";
import { member as memberOf, name, name as nameOf } from "./expression.js";
import {
  isAggregate,
  isDifferentiable,
  isNumberMatrix,
  isObject,
  isRecursiveType,
} from "../../ir/type-system.js";
import { tangentType } from "../../ir/tangent-types.js";
import type { FunctionKey, IRFunction, Op, Type } from "../../ir/types.js";
import { holeShape, type HoleShape } from "../../ir/hole-shapes.js";
import { functionKey, genericKey, keyFile, keyName } from "../../ir/function-key.js";
import type { SourceModule } from "../../parse/module.js";
import { ProgramGraph, isLocalSpecifier } from "../../parse/program.js";
import {
  isHigherOrder,
  modeOf,
  optionNames,
  type HigherOrderOperator,
  type Operator,
} from "../../../api/operators.js";
import type { OperatorCall } from "../../resolve/operator-call.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import type { Backend } from "../../../api/wasm-entry.js";
import type { OperatorWrapper } from "./operators.js";
import { WasmRequests, type WasmPrimal } from "./wasm-requests.js";
export type { WasmPrimal } from "./wasm-requests.js";

// A module's output: its own code with each operator call replaced by its wrapper, and the
// derivatives it is home to (generated functions, rule adapters, checkpoint sweeps) appended,
// with the imports between modules that they need. Reads the finished table of derivatives.

/** An operator call, with the primal and the sorted parameters its derivatives are generated for. */
export interface OperatorUse {
  call: OperatorCall;
  wrt: number[];
  primal: FunctionKey;
}

/** An operator call's backend other than JavaScript: its own option, or the program's (`quiet`). */
interface WasmChoice {
  backend: Backend;
  call: OperatorCall;
  quiet: boolean;
}

/** Names generated code in one module uses for functions and constants of other modules. */
class ModuleImports {
  private readonly byFile = new Map<string, Map<string, string>>();

  constructor(
    private readonly mod: SourceModule,
    private readonly names: ModuleNames,
  ) {}

  /** A local alias for `exported` of `file`, imported once. */
  local(file: string, exported: string, preferred: string): string {
    let names = this.byFile.get(file);
    if (!names) this.byFile.set(file, (names = new Map()));
    const existing = names.get(exported);
    if (existing) return existing;
    const alias = this.names.claim(`import:${file}#${exported}`, preferred);
    names.set(exported, alias);
    return alias;
  }

  statements(): string[] {
    return [...this.byFile].map(([file, names]) => {
      let specifier = relative(dirname(this.mod.file), file);
      if (!specifier.startsWith(".")) specifier = `./${specifier}`;
      if (file.startsWith(PACKAGE_PREFIX)) specifier = file.slice(PACKAGE_PREFIX.length);
      const list = [...names].map(([exported, alias]) =>
        exported === alias ? exported : `${exported} as ${alias}`,
      );
      return `import { ${list.join(", ")} } from ${JSON.stringify(specifier)};`;
    });
  }
}

/**
 * The name a module exports a function it does not export itself under, for generated code:
 * `name$nabla`, unless the module writes that name.
 */
function sharedName(names: ModuleNames, local: string): string {
  return names.claim(`shared:${local}`, `${local}$nabla`);
}

export function emitModule(
  program: ProgramGraph,
  mod: SourceModule,
  calls: OperatorUse[],
  own: IRFunction[],
  table: DerivativeTable,
  moduleNames: Map<string, ModuleNames>,
  extra: {
    shared?: Set<string>;
    valueOperators?: ValueOperatorUse[];
    forwards?: Forwarding[];
    /** Where warnings of emission go (NABLA202: a derivative asked for as wasm is JavaScript). */
    report?: (diagnostic: Diagnostic) => void;
    /** The module's functions tagged `@backend wasm` or `@backend auto`. */
    wasmPrimals?: WasmPrimal[];
    /** The program's backend for operator calls that name none (CompileOptions.backend). */
    backend?: Backend;
  },
): ModuleOutput {
  const shared = extra.shared ?? new Set<string>();
  const allDerivatives = table.derivatives;
  const rules = [...program.rules.values()].filter((r) => r.registration.module === mod);
  const here = moduleNames.get(mod.file)!;
  const runtime = here.runtime;
  const imports = new ModuleImports(mod, here);
  /** How this module refers to the function with `key` (a primal or a derivative). */
  const functionName = (key: FunctionKey): string => {
    const derivative = allDerivatives.get(key);
    const file = derivative ? homeOf(derivative) : keyFile(key);
    // A generic function's instantiation runs as the function itself (types are erased).
    const name = derivative ? derivative.name : keyName(genericKey(key));
    if (file === mod.file) return name;
    if (derivative) return imports.local(file, name, name);
    // `scenario.load`, a function written in another module's data: that module's object;
    // `schedule[1]`, an element of another module's array: through that array.
    const head = /^[^.[]*/.exec(name)![0];
    return imports.local(file, exportedName(file, head), `$${head}`) + name.slice(head.length);
  };
  /** How this module reads a constant: its own by name, others' through an import of ours. */
  const globalName = (name: string): string => {
    const [head, member] = name.split(".") as [string, string | undefined];
    const binding = mod.imports.get(head);
    if (!binding || !isLocalSpecifier(mod.file, binding.specifier))
      // A class's static property (`Vec3.zero`; `Tracker["#scale"]` for a private one).
      return member === undefined ? name : memberOf(nameOf(head), member).text;
    // `ns.k` of a namespace another module re-exports (`export * as ns`): from its module.
    const namespace =
      member !== undefined && binding.imported !== "*"
        ? program.namespaceModule(mod, head)
        : undefined;
    const file = namespace?.file ?? program.resolveRelative(mod.file, binding.specifier)!;
    // `Planet.G`, a static property of a class imported by name: read through the class.
    if (member !== undefined && binding.imported !== "*" && !namespace) {
      const cls = imports.local(file, binding.imported, `$${binding.imported}`);
      return memberOf(nameOf(cls), member).text;
    }
    const exported = member ?? binding.imported;
    return imports.local(file, exported, `$${exported}`);
  };
  const exportedName = (file: string, local: string) => {
    if (file.startsWith(PACKAGE_PREFIX)) return local;
    return exportOf(program.load(file), local) ?? sharedName(moduleNames.get(file)!, local);
  };
  const names = {
    callee: (op: Op) => {
      const key = op.attrs.callee!;
      // A constructor run as JavaScript (no derivative needed): `new Vec3(…)`.
      // `Circle.constructor$as$Shape` builds a Circle too.
      // A generic class's instantiation (`Box.constructor<Box$of>`) builds the class too.
      const built = keyName(genericKey(key));
      const at = built.indexOf(".constructor");
      if (!allDerivatives.has(key) && at > 0 && /^\.constructor($|\$as\$)/.test(built.slice(at)))
        return `new ${functionName(functionKey(keyFile(key), built.slice(0, at)))}`;
      if (!allDerivatives.has(key)) {
        // A method or getter run as JavaScript is called on its receiver (function.ts), so
        // nothing is imported for it; a static method is reached through its class.
        if (op.attrs.method && !op.attrs.primal) return op.attrs.method;
        const member = staticMethodName(keyName(key));
        if (member)
          return `${functionName(functionKey(keyFile(key), member.className))}.${member.method}`;
      }
      return functionName(key);
    },
    spreadsRest: (op: Op) =>
      op.attrs.restParameter === true && !allDerivatives.has(op.attrs.callee!),
    global: globalName,
    functionValue: functionName,
    runtime,
    builtin: here.builtin,
    hoisted: (name: string) => here.claim(`hoisted:${name}`, name),
  };
  const sharing = [...shared]
    .filter((name) => exportOf(mod, name) === undefined && !name.includes("."))
    .map((name) => `export { ${name} as ${sharedName(here, name)} };`);

  const emitted = [
    ...hoistedAdjustments(
      own,
      names.hoisted,
      here.claim("derivative", "$derivative"),
      (file) => program.load(file).text,
    ),
    ...hoistedArrowFields(own, names.hoisted, (file, start, end) =>
      privateNamesWritten(program, program.load(file), start, end),
    ),
  ];
  emitted.push(
    ...own.map((fn) =>
      fn.adapter
        ? emitRuleAdapter(
            fn,
            fn.adapter,
            program.rules.get(fn.adapter.rule)!,
            runtime,
            here.builtin,
          )
        : fn.checkpoint
          ? emitCheckpointSweep(fn, fn.checkpoint, functionName, runtime, (key) =>
              table.inputsOf(key),
            )
          : fn.stub
            ? emitUnavailable(fn, here.builtin)
            : emitFunction(fn, names, true),
    ),
  );
  // The module keeps each rule it registers in a variable its adapters call: a `var`, so an
  // adapter running before the registration (a module this one imports, at load time) finds
  // it undefined and says so, instead of a temporal-dead-zone error.
  const registrations: Replacement[] = rules.map((r) => {
    const callee = r.registration.call.callee;
    return {
      start: callee.start,
      end: callee.end,
      text: `var ${r.constName} = ${mod.text.slice(callee.start, callee.end)}`,
    };
  });
  /** The wrapper of a first-order operator over the derivatives of `primal`. */
  const wrapper = (
    operator: FirstOrderOperator,
    primal: FunctionKey,
    userWrt: number[],
    params: string[],
    captures: string[],
    aux = false,
    wasm?: WasmChoice,
  ): string => {
    const wrt = [...userWrt].sort((a, b) => a - b);
    const reverse = modeOf(operator) === "reverse";
    const fused = operator === "gradient" || operator === "valueWithGradient";
    const frozen = fused ? table.rootFrozen(primal) : [];
    const name = (kind: DerivativeKind) => functionName(derivativeKey(kind, primal, wrt, frozen));
    const result = table.signatureOf(primal)?.result ?? "number";
    const derivatives: Partial<OperatorWrapper> = !reverse
      ? { jvp: name("jvp") }
      : fused && allDerivatives.get(derivativeKey("grad", primal, wrt, frozen))
        ? { grad: name("grad") }
        : allDerivatives.get(derivativeKey("vjp", primal, wrt, frozen))
          ? {
              vjp: name("vjp"),
              vjpFillsShadow:
                allDerivatives.get(derivativeKey("vjp", primal, wrt, frozen))!.resultTypes.length >
                2,
            }
          : {
              fwd: name("fwd"),
              bwd: name("bwd"),
              bwdInputs: table.inputsOf(derivativeKey("bwd", primal, wrt, frozen)),
            };
    // Only the operators whose options take `backend` (a wrapper of another calls other functions).
    const wasmBackend =
      wasm && wasm.backend !== "js" && optionNames(operator).includes("backend")
        ? wasm.backend
        : undefined;
    const pullsBack = operator === "pullback" || operator === "valueWithPullback";
    // "auto" times single calls against JavaScript (runtime/adaptive-backend.ts); a pullback
    // is a forward sweep and backward sweeps run later: asked for, not chosen.
    if (wasm && wasmBackend === "auto" && pullsBack)
      wasmRequests.notCovered(
        wasmBackend,
        wasm.call,
        true,
        `'auto' keeps pullbacks JavaScript: it times single calls, and a pullback is several`,
      );
    if (wasm && wasmBackend === "wasm" && pullsBack) {
      const keyOf = (kind: DerivativeKind) => derivativeKey(kind, primal, wrt, frozen);
      const wasmPullback = wasmRequests.pullback(
        { ...wasm, backend: wasmBackend },
        primal,
        { fwd: keyOf("fwd"), bwd: keyOf("bwd") },
        { fwd: name("fwd"), bwd: name("bwd"), bwdInputs: table.inputsOf(keyOf("bwd")) },
        wrt,
        params.length + captures.length,
        operator === "valueWithPullback" && wasm.call.operator === "valueWithPullback",
      );
      if (wasmPullback)
        return operatorWrapper({
          operator,
          params,
          captures,
          wrt: userWrt,
          ...rootShapes(table, primal, here),
          aggregateResult: isAggregate(result),
          prunesResult: holdsOptionalFields(result),
          wasmPullback,
          runtime,
        });
    }
    // A pullback that stays JavaScript has said why already.
    const chosen =
      wasmBackend && wasm && !pullsBack
        ? wasmRequests.derivatives(
            wasmBackend,
            wasm.call,
            primal,
            wrt,
            frozen,
            aux,
            params.length + captures.length,
            derivatives,
            wasm.quiet,
          )
        : derivatives;
    // A pullback whose backward sweep puts no shadow back keeps no journal of them.
    const sweep = chosen.vjp
      ? derivativeKey("vjp", primal, wrt, frozen)
      : chosen.bwd
        ? derivativeKey("bwd", primal, wrt, frozen)
        : undefined;
    const journals =
      sweep === undefined || undoesStores(sweep, allDerivatives, table.primals)
        ? {}
        : { journals: false };
    return operatorWrapper({
      operator,
      params,
      captures,
      wrt: userWrt,
      ...journals,
      ...rootShapes(table, primal, here),
      aggregateResult: isAggregate(result),
      ...(chosen.vjp ? { fixedResultShape: fixedResultShape(result) } : {}),
      prunesResult: holdsOptionalFields(result),
      aux,
      ...chosen,
      runtime,
    });
  };
  /** A Jacobian's reverse passes: the valueWithPullback wrapper. */
  const pullbacks = (
    primal: FunctionKey,
    wrt: number[],
    params: string[],
    captures: string[],
    wasm: WasmChoice | undefined,
  ) => wrapper("valueWithPullback", primal, wrt, params, captures, false, wasm);
  const wasmRequests = new WasmRequests({
    mod,
    table,
    constant: (name) => mod.constants.get(name) ?? program.resolveLocalConstant(mod, name),
    claim: here.claim.bind(here),
    names,
    emitted,
    ...(extra.report ? { report: extra.report } : {}),
  });
  const replacements: Replacement[] = calls.flatMap(({ call, wrt, primal }): Replacement[] => {
    const captures = call.attach?.captures ?? call.target.captures.map((c) => c.name);
    // An attached derivative's captures are the caller's names: the parameters (a lambda of
    // the callee's) must not hide them.
    const params = call.target.node.params.map((p, i) =>
      p.type !== "Identifier" ? "" : captures.includes(p.name) ? `$p${i}` : p.name,
    );
    const wasm = call.backend
      ? { backend: call.backend, call, quiet: false }
      : // The program's backend: no warning per call that stays JavaScript.
        extra.backend
        ? { backend: extra.backend, call, quiet: true }
        : undefined;
    const text = isHigherOrder(call.operator)
      ? call.operator === "jacobian" && call.wrt.length > 1
        ? severalJacobian(primal, call.wrt, params, captures, call.call.start, call.mode, wasm)
        : call.operator === "hessian" && call.wrt.length > 1
          ? severalHessian(primal, call.wrt, params, captures, wasm)
          : higherOrder(
              call.operator,
              primal,
              wrt,
              params,
              captures,
              call.call.start,
              call.mode,
              wasm,
            )
      : wrapper(call.operator, primal, call.wrt, params, captures, call.hasAux, wasm);
    // An arrow reading `this` in a method: the capture is bound to the `this` of the call.
    const bound = captures.includes(THIS_CAPTURE) ? `((${THIS_CAPTURE}) => ${text})(this)` : text;
    if (!call.attach) return [{ start: call.call.start, end: call.call.end, text: bound }];
    // A function passed where its callee needs a derivative of it: it carries the derivative,
    // inside factories taking what the lambdas it goes into capture (resolve/attachments.ts).
    const { start, end } = call.call;
    const factory = call.attach.factories.map((names) => `(${names.join(", ")}) => `).join("");
    return [
      { start, end, text: `${runtime}.attachDerivatives(`, insert: "before" },
      {
        start,
        end,
        text: `, { ${JSON.stringify(call.attach.key)}: ${factory}${bound} })`,
        insert: "after",
      },
    ];
  });
  for (const primal of extra.wasmPrimals ?? []) replacements.push(...wasmRequests.primal(primal));
  for (const use of extra.valueOperators ?? []) {
    const applied = use.captures ? `(${use.captures.map(argumentText).join(", ")})` : "";
    replacements.push({
      start: use.call.start,
      end: use.call.end,
      text: `${runtime}.derivativeOf(${use.fn}, ${JSON.stringify(use.key)}, ${JSON.stringify(use.fn)})${applied}`,
    });
  }
  for (const forward of extra.forwards ?? []) {
    const { start, end } = forward.node;
    replacements.push(
      { start, end, text: `${runtime}.forwardDerivatives(`, insert: "before" },
      {
        start,
        end,
        text: `, ${forward.param}, ${JSON.stringify(forward.label)}, [${forward.captures.map(argumentText).join(", ")}])`,
        insert: "after",
      },
    );
  }

  /** A capture passed where the operator is called: `this` for the instance (THIS_CAPTURE). */
  function argumentText(capture: string): string {
    return capture === THIS_CAPTURE ? "this" : capture;
  }

  /** `jacobian` with respect to several parameters, `wrt` in the user's order. */
  function severalJacobian(
    primal: FunctionKey,
    wrt: number[],
    params: string[],
    captures: string[],
    at: number,
    mode: "forward" | "reverse" | undefined,
    wasm: WasmChoice | undefined,
  ): string {
    const signature = table.signatureOf(primal)!;
    const number = signature.result === "number";
    // With respect to an object, reverse mode only (resolve/operator-call.ts).
    if (wrt.some((i) => isObject(signature.params[i]!))) mode = "reverse";
    const blocks =
      mode !== "reverse" && !(number && mode === undefined)
        ? wrt.map((i) =>
            higherOrder("jacobian", primal, [i], params, captures, at, "forward", wasm),
          )
        : undefined;
    const reverse = mode !== "forward";
    return severalJacobianWrapper({
      params,
      captures,
      wrt,
      types: wrt.map((i) => signature.params[i]!),
      number,
      result: signature.result!,
      ...(blocks ? { blocks } : {}),
      ...(number && reverse
        ? { gradient: wrapper("gradient", primal, wrt, params, captures, false, wasm) }
        : {}),
      ...(!number && reverse
        ? {
            valueWithPullback: pullbacks(primal, wrt, params, captures, wasm),
          }
        : {}),
      ...(mode ? { mode } : {}),
      site: `${basename(mod.file)}:${at}`,
      writes: rootShapes(table, primal, here).writes,
      runtime,
      builtin: here.builtin,
    });
  }

  /** `hessian` with respect to several parameters, `wrt` in the user's order. */
  function severalHessian(
    primal: FunctionKey,
    wrt: number[],
    params: string[],
    captures: string[],
    wasm: WasmChoice | undefined,
  ): string {
    const signature = table.signatureOf(primal)!;
    const ascending = [...wrt].sort((a, b) => a - b);
    // The product form takes a tangent per parameter after the arguments and captures.
    const taken = new Set([...params, ...captures]);
    const tangents = ascending.map((i) => {
      let v = `v${i}`;
      while (taken.has(v)) v = `${v}_`;
      taken.add(v);
      return v;
    });
    const hvp = wrapper(
      "gradient",
      hvpKey(primal, ascending),
      wrt,
      [...params, ...captures, ...tangents],
      [],
      false,
      wasm,
    );
    return severalHessianWrapper({
      params,
      captures,
      wrt,
      types: wrt.map((i) => signature.params[i]!),
      hvp,
      writes: rootShapes(table, primal, here).writes,
      runtime,
      builtin: here.builtin,
    });
  }

  function higherOrder(
    operator: HigherOrderOperator,
    primal: FunctionKey,
    wrt: number[],
    params: string[],
    captures: string[],
    at: number,
    mode: "forward" | "reverse" | undefined,
    wasm: WasmChoice | undefined,
  ): string {
    const signature = table.signatureOf(primal)!;
    const w = wrt[0]!;
    // A Jacobian with respect to an object: reverse mode only (resolve/operator-call.ts).
    if (operator === "jacobian" && isObject(signature.params[w]!)) mode = "reverse";
    const common = {
      operator,
      params,
      captures,
      wrt: w,
      type: signature.params[w]!,
      writes: rootShapes(table, primal, here).writes,
      runtime,
      builtin: here.builtin,
    };
    if (operator !== "jacobian") {
      // The gradient of the JVP's primal form takes (params…, captures…, v).
      let v = "v";
      while (params.includes(v) || captures.includes(v)) v = `${v}_`;
      const hvp = wrapper(
        "gradient",
        hvpKey(primal, wrt),
        hvpWrt(table, primal, operator, wrt),
        [...params, ...captures, v],
        [],
        false,
        wasm,
      );
      return higherOrderWrapper({ ...common, hvp });
    }
    // Only the wrappers of the modes requested for this call (see requestHigherOrder).
    const forward = mode !== "reverse";
    const reverse = mode !== "forward";
    const valueWithDifferential = (choice: WasmChoice | undefined) =>
      wrapper("valueWithDifferential", primal, wrt, params, captures, false, choice);
    // With respect to rows (number[][]): a differential per direction, or pullbacks.
    // (A number-valued f's reverse mode is its gradient, below.)
    if (isNumberMatrix(signature.params[w]!) && !(signature.result === "number" && reverse)) {
      return matrixJacobianWrapper({
        ...common,
        result: signature.result!,
        ...(mode ? { mode } : {}),
        ...(forward ? { valueWithDifferential: valueWithDifferential(wasm) } : {}),
        ...(reverse
          ? {
              valueWithPullback: pullbacks(primal, wrt, params, captures, wasm),
            }
          : {}),
        site: `${basename(mod.file)}:${at}`,
      });
    }
    if (signature.result === "number")
      return higherOrderWrapper({
        ...common,
        result: "number",
        ...(reverse
          ? { gradient: wrapper("gradient", primal, wrt, params, captures, false, wasm) }
          : { valueWithDifferential: valueWithDifferential(wasm) }),
      });
    // Forward mode along many directions at once, with respect to an array: `f$jvps`.
    // With respect to a number, forward mode is one differential (along 1).
    const ofNumber = !isAggregate(signature.params[w]!);
    const lanesJs = forward && !ofNumber ? functionName(lanesKey(primal, wrt)) : undefined;
    let lanesFn = lanesJs;
    if (wasm && wasm.backend !== "js") {
      const choice = { ...wasm, backend: wasm.backend };
      if (lanesJs) lanesFn = wasmRequests.lanes(choice, primal, lanesKey(primal, wrt), lanesJs);
    }
    const lanes = lanesFn ? { lanes: lanesFn, site: `${basename(mod.file)}:${at}` } : {};
    return higherOrderWrapper({
      ...common,
      result: signature.result,
      ...(mode ? { mode } : {}),
      ...(forward && !ofNumber ? { valueWithDifferential: valueWithDifferential(undefined) } : {}),
      ...(forward && ofNumber
        ? { differential: wrapper("differential", primal, wrt, params, captures, false, wasm) }
        : {}),
      ...(reverse
        ? {
            valueWithPullback: pullbacks(primal, wrt, params, captures, wasm),
          }
        : {}),
      ...lanes,
    });
  }
  replacements.push(...registrations);
  const needsRuntime = emitted.length > 0 || replacements.length > 0;
  replacements.push(...privateNameRewrites(program, mod));
  const importLines = [
    ...(needsRuntime ? [`import * as ${runtime} from "${RUNTIME_SPECIFIER}";`] : []),
    ...imports.statements(),
    ...sharing,
  ];
  return assembleModule(mod.file, mod.text, replacements, importLines, emitted);
}

/** The name under which `mod` exports its top-level `local`, if it does. */
function exportOf(mod: SourceModule, local: string): string | undefined {
  for (const [exported, name] of mod.exports) if (name === local) return exported;
  return undefined;
}

export type FirstOrderOperator = Exclude<Operator, HigherOrderOperator>;

const RUNTIME_SPECIFIER = "nabla/runtime";

/** Function keys of npm packages' functions start with this (see ProgramGraph.packageFunction). */
const PACKAGE_PREFIX = "package:";

/** Per parameter of a differentiated function: how to build its shadow, and which it writes. */
function rootShapes(
  table: DerivativeTable,
  primal: FunctionKey,
  names: ModuleNames,
): {
  zeros: (((arg: string) => string) | undefined)[];
  prunes: boolean[];
  writes: number[];
  replaces: number[];
  grows?: number[];
  holds?: (string | undefined)[];
} {
  const fn = table.primals.get(primal);
  // A function with a registered rule is not lowered: its parameter types are the rule's.
  const types = fn
    ? fn.params.slice(0, fn.params.length - fn.captures).map((p) => p.type)
    : table.signatureOf(primal)?.params;
  if (!types) return { zeros: [], prunes: [], writes: [], replaces: [] };
  // An argument left out (an optional or default parameter) has no shadow: the derivative
  // reads one only where the function reads the argument, and the gradient has undefined there.
  const zeros = types.map((type) =>
    isAggregate(type)
      ? (arg: string) =>
          `${arg} == null ? ${arg} : ${zerosLike(tangentType(type), name(arg), names.runtime, names.builtin).text}`
      : undefined,
  );
  const effects = table.effects(primal);
  return {
    zeros,
    // A shadow holds zeros for the fields its value lacks (optional ones, other variants of a
    // union), which code may still write; the gradient the user gets has only the value's.
    prunes: types.map((type) => holdsOptionalFields(type)),
    writes: [...(effects?.writes ?? [])],
    replaces: [...(effects?.replaces ?? [])],
    grows: [...(effects?.grows ?? [])],
    ...(fn ? { holds: fn.params.map((p) => shapeText(holeShape(p.type))) } : {}),
  };
}

/** A hole shape as the JSON the runtime reads, or undefined when there is nothing to look at. */
function shapeText(shape: HoleShape | undefined): string | undefined {
  return shape === undefined ? undefined : JSON.stringify(shape);
}

/**
 * What the gradient of x ↦ ⟨∇f(x), v⟩ is taken with respect to: x, and for
 * `gradientAndHessianVectorProduct` v too (the last parameter of f's JVP), whose adjoint is
 * ∇f(x) — the gradient comes with the Hessian-vector product from the same pass.
 */
export function hvpWrt(
  table: DerivativeTable,
  primal: FunctionKey,
  operator: HigherOrderOperator,
  wrt: number[],
): number[] {
  if (operator !== "gradientAndHessianVectorProduct") return wrt;
  return [...wrt, table.signatureOf(primal)!.params.length];
}

/** The primal form of f's JVP, whose gradient is a Hessian-vector product. */
export function hvpKey(primal: FunctionKey, wrt: number[]): FunctionKey {
  return derivedPrimalKey(jvpKey(primal, wrt), "product");
}

/** The module a generated function is emitted in: its primal's, or the rule's registrant. */
export function homeOf(fn: IRFunction): string {
  return fn.adapter?.home ?? keyFile(fn.key);
}

/** Whether values of this type may lack fields their type has (optional ones, union variants). */
function holdsOptionalFields(type: Type, inside: Type[] = []): boolean {
  if (!isAggregate(type) || inside.includes(type) || isRecursiveType(type)) return false;
  const within = [...inside, type];
  if (type.kind === "array")
    return [type.element, ...(type.elements ?? [])].some((e) => holdsOptionalFields(e, within));
  if (type.kind === "keyed") return holdsOptionalFields(type.value, within);
  return type.fields.some(
    (f) => (f.optional && isDifferentiable(f.type)) || holdsOptionalFields(f.type, within),
  );
}
