import type { FunctionLike } from "../parse/module.js";
import { walk } from "../parse/module.js";
import type { ObjectType } from "../ir/types.js";

// A method that returns `this` (`add(v: T) { …; return this; }`, for chaining): its result is
// the instance's type. The checker's type of it is `this`, which in a generic class is
// `Stack<T>`, no type nabla has; the method and its calls both read the result here.

/**
 * `thisType` when the method is declared to return `this` or its every `return` is
 * `return this`; else undefined.
 */
export function thisResult(
  fn: FunctionLike,
  thisType: ObjectType | undefined,
): ObjectType | undefined {
  if (!thisType || fn.body?.type !== "BlockStatement") return undefined;
  if (fn.returnType?.typeAnnotation.type === "TSThisType") return thisType;
  let self = 0;
  let other = 0;
  walk(fn.body, (n) => {
    // A function inside returns for itself.
    if (n !== fn.body && /Function/.test(n.type)) return false;
    if (n.type === "ReturnStatement") {
      if (n.argument?.type === "ThisExpression") self++;
      else other++;
    }
    return true;
  });
  return self > 0 && other === 0 ? thisType : undefined;
}
