import { test } from "node:test";
import { checkAgainstPlain } from "./support/two-ways.js";

// Programs written as TypeScript developers write them, each checked against the plain
// program run as JavaScript, central differences, and forward mode against reverse mode.

test("a case whose nested switch over every value of a union returns in each, in a function ending in a switch, returns (it was NABLA107)", async () => {
  // TypeScript knows the inner switch cannot fall out of `case "bin"`: nabla took the case for
  // one that can, so the function for one that can reach its end.
  await checkAgainstPlain(
    `type Op = "+" | "*" | "/";
type Node = { kind: "bin"; op: Op } | { kind: "neg" } | { kind: "pow"; n: number };
function apply(node: Node, x: number, y: number): number {
  switch (node.kind) {
    case "bin": {
      const l = x * 2;
      switch (node.op) {
        case "+": return l + y;
        case "*": return l * y;
        case "/": return l / y;
      }
    }
    case "neg":
      if (x > 0) {
        switch (node.kind) {
          case "neg": return -x * y;
        }
      } else {
        return x - y;
      }
    case "pow":
      return (node as { n: number }).n > 0 ? x ** 3 : y;
  }
}
export function f(x: number, y: number) {
  const nodes: Node[] = [{ kind: "bin", op: "*" }, { kind: "bin", op: "/" }, { kind: "neg" }, { kind: "pow", n: 2 }];
  let s = 0;
  for (const n of nodes) s += apply(n, x, y);
  return s;
}`,
    [
      [0.7, -0.4],
      [-1.3, 0.9],
    ],
  );
});
