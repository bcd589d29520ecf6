import type { Node } from "oxc-parser";
import type { Type } from "../ir/types.js";
import { annotationType } from "./signature.js";
import { isTypedArrayName, sameType } from "../ir/type-system.js";
import type { TypeResolver } from "./signature.js";

// Types of initializers nabla can know without a type checker: literals, arithmetic,
// comparisons, Math, Number(…) and names whose types are known. Used for module-level
// constants and for variables a lambda captures; anything else needs an annotation.

export type TypeLookup = (name: string) => Type | undefined;

/** Whether a name is the platform's global (`Math`, `Number`…) where the initializer is. */
export type GlobalTest = (name: string) => boolean;

const NUMBER_CALLS = new Set([
  "Number",
  "parseFloat",
  "parseInt",
  "Number.parseFloat",
  "Number.parseInt",
]);
const BOOLEAN_CALLS = new Set([
  "isNaN",
  "isFinite",
  "Number.isNaN",
  "Number.isFinite",
  "Number.isInteger",
]);

function calleePath(node: Node, isGlobal: GlobalTest): string | undefined {
  const path = writtenPath(node);
  return path !== undefined && isGlobal(path.split(".")[0]!) ? path : undefined;
}

function writtenPath(node: Node): string | undefined {
  if (node.type === "Identifier") return node.name;
  if (
    node.type === "MemberExpression" &&
    !node.computed &&
    node.object.type === "Identifier" &&
    node.property.type === "Identifier"
  ) {
    return `${node.object.name}.${node.property.name}`;
  }
  return undefined;
}

/**
 * The type of an initializer. With `resolve`, also arrays of numbers, typed arrays built with
 * `new`, and instances of declared classes (`new Linear(3)`).
 */
export function inferType(
  node: Node | null | undefined,
  lookup: TypeLookup,
  resolve?: TypeResolver,
  isGlobal: GlobalTest = () => true,
): Type | undefined {
  if (!node) return undefined;
  const infer = (n: Node | null | undefined, withResolve?: TypeResolver) =>
    inferType(n, lookup, withResolve, isGlobal);
  switch (node.type) {
    case "NewExpression": {
      if (!resolve || node.callee.type !== "Identifier") return undefined;
      const name = node.callee.name;
      if (isTypedArrayName(name) && isGlobal(name))
        return { kind: "array", storage: name, element: "number" };
      // `new Map<string, Moments>()`, `new Set<number>()`: the type its type arguments give.
      if ((name === "Map" || name === "Set") && isGlobal(name) && node.typeArguments) {
        return resolve({
          type: "TSTypeReference",
          typeName: { type: "Identifier", name },
          typeArguments: node.typeArguments,
          start: node.start,
          end: node.end,
        } as never);
      }
      const t = resolve({
        type: "TSTypeReference",
        typeName: { type: "Identifier", name },
        start: node.start,
        end: node.end,
      } as never);
      return t && typeof t === "object" && t.kind === "object" && t.classKey ? t : undefined;
    }
    case "ArrayExpression": {
      if (!resolve) return undefined;
      const types = node.elements.map((e) =>
        e && e.type !== "SpreadElement" ? infer(e, resolve) : undefined,
      );
      const first = types[0];
      if (!first || !types.every((t) => t !== undefined && sameType(t, first))) return undefined;
      return { kind: "array", storage: "Array", element: first };
    }
    case "Literal":
      return typeof node.value === "number"
        ? "number"
        : typeof node.value === "boolean"
          ? "boolean"
          : typeof node.value === "string"
            ? "string"
            : undefined;
    case "Identifier":
      return (node.name === "NaN" || node.name === "Infinity") && isGlobal(node.name)
        ? "number"
        : lookup(node.name);
    case "TSAsExpression":
    case "TSSatisfiesExpression":
      return (
        annotationType({ typeAnnotation: node.typeAnnotation } as never) ?? infer(node.expression)
      );
    case "TSNonNullExpression":
      return infer(node.expression);
    case "UnaryExpression":
      if (node.operator === "!") return "boolean";
      if (node.operator === "-" || node.operator === "+" || node.operator === "~") return "number";
      return undefined;
    case "BinaryExpression": {
      if (["<", "<=", ">", ">=", "===", "!==", "==", "!="].includes(node.operator))
        return "boolean";
      if (node.left.type === "PrivateIdentifier") return undefined;
      const left = infer(node.left);
      const right = infer(node.right);
      if (node.operator === "+")
        return left === "number" && right === "number"
          ? "number"
          : left === "string" || right === "string"
            ? "string"
            : undefined;
      return ["-", "*", "/", "%", "**", "|", "&", "^", "<<", ">>", ">>>"].includes(node.operator)
        ? "number"
        : undefined;
    }
    case "LogicalExpression": {
      const left = infer(node.left);
      return left !== undefined && left === infer(node.right)
        ? left
        : node.operator === "??"
          ? left
          : undefined;
    }
    case "ConditionalExpression": {
      const a = infer(node.consequent);
      return a === infer(node.alternate) ? a : undefined;
    }
    case "MemberExpression":
      // `Math.PI`; `Math.tanh` is a function.
      return /^Math\.[A-Z][A-Z0-9_]*$/.test(calleePath(node, isGlobal) ?? "")
        ? "number"
        : undefined;
    case "CallExpression": {
      // `new Float64Array(n).fill(0)`, `xs.slice()`, `xs.map(…)` of a known array keep its type.
      const callee = node.callee;
      if (
        resolve &&
        callee.type === "MemberExpression" &&
        !callee.computed &&
        callee.property.type === "Identifier" &&
        ["fill", "slice", "map"].includes(callee.property.name)
      ) {
        const receiver = infer(callee.object, resolve);
        if (receiver && typeof receiver === "object" && receiver.kind === "array")
          return callee.property.name === "map" && receiver.storage === "Array"
            ? undefined
            : receiver;
      }
      const path = calleePath(node.callee, isGlobal);
      if (!path) return undefined;
      if (path.startsWith("Math.") || NUMBER_CALLS.has(path)) return "number";
      if (BOOLEAN_CALLS.has(path)) return "boolean";
      if (path === "String") return "string";
      return undefined;
    }
    default:
      return undefined;
  }
}
