import { parameterFunctionTypeOf } from "../types/resolver.js";
import type { Backend } from "../../api/wasm-entry.js";
import type { Message } from "../diagnostics/messages/message.js";
import type { CallExpression, NewExpression, Node } from "oxc-parser";
import { basename } from "node:path";
import { positionAt } from "../diagnostics/format.js";
import { lambdaName } from "../ir/names.js";
import { staticKey, type StaticFunction } from "./targets.js";
import { classMember } from "../parse/class-member.js";
import { genericKey, keyFile, keyName } from "../ir/function-key.js";
import { isObject } from "../ir/type-system.js";
import { typeResolver } from "../types/resolver.js";
import {
  ancestry,
  classNamed,
  descendants,
  dottedName,
  implementersOf,
  staticMethodSymbol,
  type ClassSymbol,
} from "../parse/class-hierarchy.js";
import { walk, type FunctionLike, type SourceModule } from "../parse/module.js";
import type { FunctionSymbol, ProgramGraph } from "../parse/program.js";
import { declaredLocally, freeNames, findLocalFunction } from "./captures.js";
import { unwrapped } from "./function-values.js";
import type { FunctionTypeInfo } from "../ir/types.js";
import type { DifferentiationTarget } from "./targets.js";
import { isOperator } from "../../api/operators.js";
import type { Operator } from "../../api/operators.js";
import {
  analyzeCall,
  ancestorsOf,
  lambdaReads,
  functionLeaves,
  nablaOperatorOf,
  type OperatorCall,
} from "./operator-call.js";

// Derivatives carried by function values in plain code. A function that applies an operator
// to its function-typed parameter (`gradient(f)` in a solver), or to a lambda calling it
// (`derivative((t) => f(q with q[i] = t))`), cannot have them compiled where it is written:
// `f` is unknown there. So they are compiled at each call that passes a function nabla sees,
// as if the operator were written there, and attached to the value passed
// (`attachDerivatives`); the solver looks them up (`derivativeOf`). A function that passes its
// own parameter on inside a lambda (`argmin((x) => -f(x))`) forwards what its callers
// attached for that lambda (`forwardDerivatives`).

/** A lambda written in some function of the program, and the parameter it calls. */
export interface LambdaSite {
  module: SourceModule;
  node: FunctionLike;
  /** The nodes enclosing it, outermost first. */
  ancestors: Node[];
  /** The name by which it reads the function value (a parameter of an enclosing function). */
  param: string;
  /** The function type it is passed as (a lambda passed on), for unannotated parameters. */
  contextual?: FunctionTypeInfo;
}

/**
 * A derivative a function value must carry: `operator` of the value itself, or of `target`, a
 * lambda calling it; `via` are the lambdas, outermost first, that the value went into before
 * (each calls the previous one and is passed on to a parameter).
 */
export interface Need {
  operator: Operator;
  via: LambdaSite[];
  target?: LambdaSite;
  /** The differentiated parameters of the function the operator applies to. */
  wrt: number[];
  /** The operator call's `backend` option, which the attached derivative follows. */
  backend?: Backend;
}

/**
 * The name under which a need is attached: `gradient`, `gd.ts:77:29 > gradient`,
 * `derivative(gd.ts:29:11, wrt 0)`.
 */
export function needKey(need: Pick<Need, "operator" | "via" | "target" | "wrt">): string {
  // One lambda may be differentiated with respect to different parameters at different sites.
  const last = need.target
    ? `${need.operator}(${siteLabel(need.target)}, wrt ${need.wrt.join(" ")})`
    : need.operator;
  return [...need.via.map(siteLabel), last].join(" > ");
}

/** Where a lambda is written, as a short readable label. */
export function siteLabel(site: Pick<LambdaSite, "module" | "node">): string {
  const pos = positionAt(site.module.text, site.node.start);
  return `${basename(site.module.file)}:${pos.line}:${pos.column}`;
}

/** A lambda written at `node` (an arrow, or the name of a local function), if it is one. */
export function lambdaAt(node: Node, ancestors: readonly Node[]): FunctionLike | undefined {
  if (node.type === "ArrowFunctionExpression" || node.type === "FunctionExpression") return node;
  if (node.type === "Identifier") return findLocalFunction(node.name, ancestors)?.node;
  return undefined;
}

/**
 * The function-typed parameters of enclosing functions that `lambda` reads, as seen from a
 * site with these `ancestors`.
 */
export function calledParameters(
  program: ProgramGraph,
  module: SourceModule,
  lambda: FunctionLike,
  ancestors: readonly Node[],
): string[] {
  return freeNames(lambda).filter((name) =>
    functionTypedParameter(program, module, name, ancestors),
  );
}

/** Whether `name`, seen from a site, is a function-typed parameter of an enclosing function. */
export function functionTypedParameter(
  program: ProgramGraph,
  module: SourceModule,
  name: string,
  ancestors: readonly Node[],
): FunctionTypeInfo | undefined {
  for (let i = ancestors.length - 1; i >= 0; i--) {
    const fn = ancestors[i]!;
    if (
      fn.type !== "FunctionDeclaration" &&
      fn.type !== "FunctionExpression" &&
      fn.type !== "ArrowFunctionExpression"
    )
      continue;
    const param = fn.params.find((p) => parameterName(p) === name);
    if (param) return parameterFunctionTypeOf(program, module, param);
    // Declared by this function (or one inside it, nearer the site): shadows outer parameters.
    if (declaredLocally(name, ancestors.slice(i))) return undefined;
  }
  return undefined;
}

/** The default `wrt` of an operator on `lambda` (every differentiable parameter). */
function defaultWrt(
  program: ProgramGraph,
  module: SourceModule,
  lambda: FunctionLike,
  ancestors: readonly Node[],
  operator: Operator,
): number[] {
  const synthetic = syntheticCall(operator, lambda);
  const call = analyzeCall(program, module, synthetic, ancestors, operator, () => undefined);
  return call?.wrt ?? lambda.params.map((_, i) => i);
}

/** `operator(fn)`, as if written where `fn` is. */
function syntheticCall(operator: string, fn: Node, at: Node = fn): CallExpression {
  return {
    type: "CallExpression",
    start: at.start,
    end: at.end,
    callee: { type: "Identifier", name: operator, start: at.start, end: at.start },
    arguments: [fn],
    optional: false,
  } as unknown as CallExpression;
}

/**
 * The derivatives a function must find attached to its parameter `name`: operators it applies
 * to it or to lambdas calling it, and those of the functions it passes it on to, directly or
 * inside a lambda (`descendFrom(f, p)` calling `descend(f, p)`, which takes `gradient(f)`).
 */
export function needsOfParameter(
  program: ProgramGraph,
  symbol: FunctionSymbol,
  name: string,
  path: ReadonlySet<string> = new Set(),
): Need[] {
  // `path`: the parameters being followed, so a recursion stops (another route still counts).
  const key = `${symbol.module.file}#${symbol.name}#${name}`;
  if (path.has(key) || !symbol.node.body) return [];
  const seen = new Set(path).add(key);
  const module = symbol.module;
  let outer: Node[] | undefined;
  const fullAncestors = (inner: readonly Node[]): Node[] => {
    outer ??= [...ancestorsOf(module, symbol.node), symbol.node];
    return [...outer, ...inner];
  };
  /** A lambda at `node` that calls `name` (not shadowed), as a site. */
  const siteOf = (node: Node, ancestors: readonly Node[]): LambdaSite | undefined => {
    if (declaredLocally(name, ancestors)) return undefined;
    const full = fullAncestors(ancestors);
    const lambda = lambdaAt(node, full);
    if (!lambda || !freeNames(lambda).includes(name) || !calls(module, lambda, name))
      return undefined;
    return { module, node: lambda, ancestors: full, param: name };
  };
  const found: Need[] = [];
  walk(symbol.node.body, (n, ancestors) => {
    if (n.type === "NewExpression") {
      passedOn(n, ancestors);
      return true;
    }
    if (n.type !== "CallExpression") return true;
    const operator = nablaOperatorOf(module, n.callee);
    const fn = n.arguments[0];
    // `derivative(curve!)` of an optional parameter, under a test: the parameter.
    const named = fn && unwrapped(fn);
    if (operator && fn) {
      if (
        isOperator(operator) &&
        n.arguments.length === 1 &&
        named?.type === "Identifier" &&
        named.name === name &&
        !declaredLocally(name, ancestors)
      ) {
        found.push({ operator: operator as Operator, via: [], wrt: [] });
      } else if (isOperator(operator)) {
        const target = siteOf(fn, ancestors);
        if (target) {
          const call = analyzeCall(
            program,
            module,
            n,
            target.ancestors,
            operator as Operator,
            () => undefined,
          );
          if (call)
            found.push({
              operator: operator as Operator,
              via: [],
              target,
              wrt: call.wrt,
              ...(call.backend ? { backend: call.backend } : {}),
            });
        }
      }
    }
    if (!operator) passedOn(n, ancestors);
    return true;
  });
  return found;

  /** Needs of the parameters of the function `n` calls that `name` is passed to. */
  function passedOn(n: CallExpression | NewExpression, ancestors: readonly Node[]): void {
    for (const callee of calleeSymbols(program, module, n, ancestors))
      passedTo(n, callee, ancestors);
  }

  function passedTo(
    n: CallExpression | NewExpression,
    callee: FunctionSymbol,
    ancestors: readonly Node[],
  ): void {
    n.arguments.forEach((arg, i) => {
      const paramName = parameterName(callee.node.params[i]);
      const param = callee.node.params[i];
      if (paramName === undefined || !param) return;
      // Each function the argument may be (`c ? (x) => -f(x) : f`).
      for (const leaf of functionLeaves(arg)) {
        if (leaf.type === "Identifier" && leaf.name === name && !declaredLocally(name, ancestors)) {
          found.push(...needsOfParameter(program, callee, paramName, seen));
          continue;
        }
        const via = siteOf(leaf, ancestors);
        if (!via) continue;
        const contextual = parameterFunctionTypeOf(program, callee.module, param);
        const site = { ...via, ...(contextual ? { contextual } : {}) };
        for (const need of needsOfParameter(program, callee, paramName, seen)) {
          // An operator on the parameter itself now applies to this lambda: its own `wrt`.
          const wrt =
            need.via.length === 0 && !need.target
              ? defaultWrt(program, module, site.node, site.ancestors, need.operator)
              : need.wrt;
          found.push({ ...need, via: [site, ...need.via], wrt });
        }
      }
    });
  }
}

/**
 * The function a call or `new` in plain code runs, when nabla can tell from the source: a
 * function of the program by name (`minimize`, `lib.minimize` of a namespace import), a static
 * method (`Solver.minimize`), or the constructor of a class of the program (its own, else the
 * nearest base class's).
 */
function calleeSymbols(
  program: ProgramGraph,
  module: SourceModule,
  node: CallExpression | NewExpression,
  ancestors: readonly Node[],
): FunctionSymbol[] {
  const callee = node.callee;
  // `Solver`, or `lib.Solver` / `lib.minimize` through a namespace import: a name of the
  // module, not a local.
  const moduleLevel = (n: Node): string | undefined => {
    const dotted = dottedName(n);
    return dotted === undefined || declaredLocally(dotted.split(".")[0]!, ancestors)
      ? undefined
      : dotted;
  };
  const dotted = moduleLevel(callee);
  if (node.type === "NewExpression") {
    const cls = dotted === undefined ? undefined : classNamed(program, module, dotted);
    for (const owner of cls ? ancestry(program, cls) : []) {
      const ctor = constructorOf(owner.decl);
      if (ctor) return [{ module: owner.module, name: `${owner.name}.constructor`, node: ctor }];
    }
    return [];
  }
  if (callee.type === "Identifier") {
    const fn = dotted === undefined ? undefined : program.resolveLocalFunction(module, dotted);
    return fn ? [fn] : [];
  }
  if (callee.type !== "MemberExpression" || callee.computed) return [];
  if (callee.property.type !== "Identifier") return [];
  const object = callee.object;
  const method = callee.property.name;
  const owner = moduleLevel(object);
  if (owner !== undefined) {
    const found =
      staticMethodSymbol(program, module, owner, method) ??
      namespaceFunction(program, module, owner, method);
    if (found) return [found];
  }
  return instanceMethodSymbols(program, module, object, method, ancestors);
}

/** `lib.minimize`: the function a module imported as a namespace exports by that name. */
function namespaceFunction(
  program: ProgramGraph,
  module: SourceModule,
  namespace: string,
  name: string,
): FunctionSymbol | undefined {
  const target = program.namespaceAt(module, namespace);
  return target && program.resolveExport(target, name);
}

/**
 * The method `receiver.name(…)` runs, for a receiver of a class of the program (`new Fitter()`,
 * or one TypeScript types as an instance of it): the class's own method or its nearest base
 * class's. Only methods by that name that apply an operator to a parameter are looked for,
 * so other calls cost no lookup of types.
 */
function instanceMethodSymbols(
  program: ProgramGraph,
  module: SourceModule,
  receiver: Node,
  name: string,
  ancestors: readonly Node[],
): FunctionSymbol[] {
  if (!program.loadedModules().some((mod) => declaresMethodNeedingDerivatives(program, mod, name)))
    return [];
  let classes: ClassSymbol[] = [];
  if (
    receiver.type === "NewExpression" &&
    receiver.callee.type === "Identifier" &&
    !declaredLocally(receiver.callee.name, ancestors)
  ) {
    const cls = classNamed(program, module, receiver.callee.name);
    if (cls) classes = [cls];
  } else {
    const at =
      receiver.type === "MemberExpression" && !receiver.computed
        ? receiver.property.start
        : receiver.type === "Identifier" || receiver.type === "ThisExpression"
          ? receiver.start
          : undefined;
    const inferred = typeResolver(program, module).inferred;
    // Another expression (`make().fit(…)`, `fitters[1].fit(…)`): the type TypeScript gives it.
    const type =
      at !== undefined
        ? inferred?.typeAt(at)
        : inferred?.expectedTypeOf(receiver.start, receiver.end);
    if (type && isObject(type) && type.classKey) {
      const key = genericKey(type.classKey);
      const cls = classNamed(program, program.load(keyFile(key)), keyName(key));
      if (cls) classes = [cls, ...descendants(program, cls)];
    } else if (type && isObject(type) && type.interfaceKey) {
      // An interface or a union of classes (`make(): Fitter`): each class it may be.
      for (const key of type.unionOf ?? [type.interfaceKey]) {
        const mod = program.load(keyFile(key));
        const cls = classNamed(program, mod, keyName(key));
        const decl = mod.types.get(keyName(key));
        classes.push(
          ...(cls
            ? [cls, ...descendants(program, cls)]
            : decl
              ? implementersOf(program, decl)
              : []),
        );
      }
    }
  }
  // The method each class runs: its own or its nearest base's, once each.
  const found: FunctionSymbol[] = [];
  for (const cls of classes) {
    for (const owner of ancestry(program, cls)) {
      const node = classMember(owner.decl, name, "method");
      if (!node) continue;
      if (!found.some((f) => f.node === node))
        found.push({ module: owner.module, name: `${owner.name}.${name}`, node });
      break;
    }
  }
  return found;
}

/** Methods being looked at by declaresMethodNeedingDerivatives (a method calling itself). */
const lookingAt = new Set<string>();

/** Whether a class of `mod` has a method `name` that needs derivatives of a parameter. */
function declaresMethodNeedingDerivatives(
  program: ProgramGraph,
  mod: SourceModule,
  name: string,
): boolean {
  const key = `${mod.file}#${name}`;
  if (lookingAt.has(key)) return false;
  lookingAt.add(key);
  try {
    return classesNeed(program, mod, name);
  } finally {
    lookingAt.delete(key);
  }
}

function classesNeed(program: ProgramGraph, mod: SourceModule, name: string): boolean {
  for (const [className, decl] of mod.types) {
    if (decl.type !== "ClassDeclaration" && decl.type !== "ClassExpression") continue;
    const node = classMember(decl, name, "method");
    if (!node) continue;
    const symbol = { module: mod, name: `${className}.${name}`, node };
    for (const param of node.params) {
      const paramName = parameterName(param);
      if (paramName !== undefined && needsOfParameter(program, symbol, paramName).length > 0)
        return true;
    }
  }
  return false;
}

/** The constructor a class declares, if it declares one. */
function constructorOf(decl: ClassSymbol["decl"]): FunctionLike | undefined {
  for (const member of decl.body.body)
    if (member.type === "MethodDefinition" && member.kind === "constructor" && member.value.body)
      return member.value;
  return undefined;
}

/** The name a parameter binds, written plainly or as a constructor's `private f`. */
function parameterName(param: Node | undefined): string | undefined {
  const inner = param?.type === "TSParameterProperty" ? param.parameter : param;
  return inner?.type === "Identifier" ? inner.name : undefined;
}

/**
 * Whether `fn` calls `name` somewhere: `name(…)`, or an operator's `derivative(name)(…)`
 * (`(x) => derivative(f)(x)`, whose derivative needs `f`'s second derivative).
 */
function calls(module: SourceModule, fn: FunctionLike, name: string): boolean {
  let found = false;
  walk(fn, (n) => {
    if (n.type !== "CallExpression") return !found;
    const arg = n.arguments[0] && unwrapped(n.arguments[0]);
    if (n.callee.type === "Identifier" && n.callee.name === name) found = true;
    else if (arg?.type === "Identifier" && arg.name === name && nablaOperatorOf(module, n.callee))
      found = true;
    return !found;
  });
  return found;
}

/** A lambda passed on inside a function that got it from its caller: forward its derivatives. */
export interface Forwarding {
  /** The argument (the lambda, or the name of a local function). */
  node: Node;
  /** The parameter it calls, and the label its derivatives are attached under. */
  param: string;
  label: string;
  /** The other variables it captures, which the attached factories take. */
  captures: string[];
}

/** An operator applied, in plain code, to a lambda calling a function-typed parameter. */
export interface LambdaOperatorUse {
  call: CallExpression;
  param: string;
  key: string;
  captures: string[];
}

/**
 * A call passing a function to a parameter its callee needs derivatives of (`minimizeGD(
 * (p) => …, …)`, where minimizeGD calls `gradient(loss)`): the derivatives are compiled here,
 * where the function and what it captures are known, and attached to the value it passes;
 * or, when the function passed calls a parameter of the caller, forwarded from that parameter.
 */
export function attachments(
  program: ProgramGraph,
  module: SourceModule,
  node: CallExpression | NewExpression,
  ancestors: readonly Node[],
  error: (node: Node, message: Message) => void,
): { calls: OperatorCall[]; forwards: Forwarding[] } {
  const result = { calls: [] as OperatorCall[], forwards: [] as Forwarding[] };
  const inner = [...ancestors, node];
  // One derivative per argument and key: `derivative(f)` written twice, or in the methods of
  // two classes the receiver may be, is attached once.
  const attachedTo = new Map<Node, Set<string>>();
  for (const symbol of calleeSymbols(program, module, node, ancestors)) attachFor(symbol);
  return result;

  function attachFor(symbol: FunctionSymbol): void {
    symbol.node.params.forEach((param, i) => {
      const arg = node.arguments[i];
      const name = parameterName(param);
      if (name === undefined || !arg || arg.type === "SpreadElement") return;
      const needs = needsOfParameter(program, symbol, name);
      if (needs.length === 0) return;
      const contextual = parameterFunctionTypeOf(program, symbol.module, param);
      for (const leaf of functionLeaves(arg)) {
        const lambda = lambdaAt(leaf, ancestors);
        const [called] = lambda ? calledParameters(program, module, lambda, ancestors) : [];
        if (lambda && called) {
          const captures = lambdaReads(program, module, lambda, ancestors).captures.filter(
            (c) => c.name !== called,
          );
          result.forwards.push({
            node: leaf,
            param: called,
            label: siteLabel({ module, node: lambda }),
            captures: captures.map((c) => c.name),
          });
          continue;
        }
        // A function value only passed on (a parameter of the caller) has its derivatives
        // attached where it was first passed, if anywhere; the operator says so at run time.
        if (leaf.type === "Identifier" && declaredLocally(leaf.name, ancestors) && !lambda)
          continue;
        const leafCalls = new Map<Operator, OperatorCall | undefined>();
        const leafCall = (operator: Operator) => {
          if (!leafCalls.has(operator)) {
            const synthetic: CallExpression = {
              ...(node as CallExpression),
              type: "CallExpression",
              optional: false,
              arguments: [leaf as never],
              start: leaf.start,
              end: leaf.end,
            };
            const call = analyzeCall(program, module, synthetic, inner, operator, error);
            if (call?.target.contextualNumberParams && contextual) {
              call.target = { ...call.target, contextualNumberParams: false, contextual };
            }
            leafCalls.set(operator, call);
          }
          return leafCalls.get(operator);
        };
        const attached = attachedTo.get(leaf) ?? new Set<string>();
        attachedTo.set(leaf, attached);
        for (const need of needs) {
          const key = needKey(need);
          if (attached.has(key)) continue;
          attached.add(key);
          const call = leafCall(need.operator);
          if (!call) continue;
          if (need.via.length === 0 && !need.target) {
            result.calls.push({ ...call, attach: { key, factories: [] } });
            continue;
          }
          const chain = chainTarget(program, module, leaf, ancestors, call.target, need);
          result.calls.push({
            ...call,
            ...(need.backend ? { backend: need.backend } : {}),
            target: chain.target,
            wrt: need.wrt,
            attach: { key, factories: chain.factories, captures: chain.captures },
          });
        }
      }
    });
  }
}

/**
 * What a need differentiates, for the function `leaf` passed here: the lambdas of `need.via`
 * (and its target) specialized in turn for the function they call, the first for `leaf`. The
 * attached derivative is a chain of factories taking each lambda's other captures, at run time
 * where that lambda is written; `captures` are the expressions the operator's wrapper passes.
 */
function chainTarget(
  program: ProgramGraph,
  module: SourceModule,
  leaf: Node,
  ancestors: readonly Node[],
  leafTarget: DifferentiationTarget,
  need: Need,
): { target: DifferentiationTarget; factories: string[][]; captures: string[] } {
  const named =
    leaf.type === "Identifier" && !declaredLocally(leaf.name, ancestors)
      ? program.resolveLocalFunction(module, leaf.name)
      : undefined;
  let fn: StaticFunction = named
    ? { kind: "named", symbol: named }
    : liftedLeaf(program, module, leafTarget);
  let captures = named ? [] : leafTarget.captures.map((c) => c.name);
  const factories: string[][] = [];
  const sites = need.target ? [...need.via, need.target] : need.via;
  sites.forEach((site, level) => {
    const reads = lambdaReads(program, site.module, site.node, site.ancestors);
    const own = reads.captures.filter((c) => c.name !== site.param);
    const names = own.map((_, j) => `$c${level}_${j}`);
    factories.push(names);
    const key = `${site.module.file}#lambda@${site.node.start}~attached{${site.param}=${staticKey(fn)}}`;
    const pos = positionAt(site.module.text, site.node.start);
    const isTarget = site === need.target;
    const preferred = `${lambdaName(pos.line, pos.column)}${isTarget ? "" : "$passed"}`;
    const target: DifferentiationTarget = {
      module: site.module,
      name: program.generatedName(site.module.file, key, preferred),
      node: site.node,
      contextualNumberParams: isTarget,
      captures: own,
      ...(reads.localFunctions ? { localFunctions: reads.localFunctions } : {}),
      bindings: [{ name: site.param, fn }],
      ...(site.contextual ? { contextual: site.contextual } : {}),
      liftedCaptures: true,
    };
    fn = { kind: "lambda", key, target };
    captures = [...names, ...captures];
  });
  return { target: (fn as StaticFunction & { kind: "lambda" }).target, factories, captures };
}

/** The function passed, as a function of its own that a specialization calls (see lift). */
function liftedLeaf(
  program: ProgramGraph,
  module: SourceModule,
  target: DifferentiationTarget,
): StaticFunction {
  const key = `${module.file}#lambda@${target.node.start}~attached`;
  const name = program.generatedName(module.file, key, `${target.name}$passed`);
  return { kind: "lambda", key, target: { ...target, name, liftedCaptures: true } };
}
