// JavaScript semantics corners a TS developer relies on without thinking.
import { gradient, derivative } from "nabla";
import { compare, fdGrad, fd1, summary } from "./check.ts";

// default sort is lexicographic

// for..of over an array pushed to while iterating visits the new elements
function growingWalk(x: number): number {
  const queue = [x];
  let total = 0;
  for (const v of queue) {
    total += v;
    if (queue.length < 5) queue.push(v * 0.5 + 1);
  }
  return total;
}
// forEach does not visit pushed elements
function forEachPush(x: number): number {
  const arr = [x, 2 * x];
  let total = 0;
  arr.forEach((v) => {
    total += v * v;
    arr.push(v);
  });
  return total + arr.length;
}
// reverse and sort return the same array
function reverseAlias(xs: number[]): number {
  const ys = xs.slice();
  const r = ys.reverse();
  r[0] = r[0] * 3;
  const s = ys.sort((a, b) => a - b);
  s[s.length - 1] *= 2;
  return ys.reduce((a, v, i) => a + v * (i + 2), 0);
}
// assignment expressions, ++ on fields, comma (written so on purpose)
/* eslint-disable prefer-const, no-useless-assignment */
function assignExprs(x: number): number {
  let a: number;
  let b: number;
  a = b = x * 2;
  const o = { count: x, hits: 0 };
  const old = o.count++;
  const arr = [0, 0, 0];
  let i = 0;
  arr[i++] = x;
  arr[i++] = x * x;
  const c = ((o.hits += x), o.hits * 3);
  return a * b + old * o.count + arr[0] * arr[1] + c;
}
// || and && on numbers
function orFallback(x: number, y: number): number {
  const v = x || y;
  const w = y && x * 3;
  return v * 2 + w;
}
// holes: map skips them
function holes(x: number): number {
  const arr = new Array<number>(3);
  arr[1] = x;
  const doubled = arr.map((v) => v * 2);
  let s = 0;
  doubled.forEach((v) => (s += v));
  return s;
}

compare("growing fwd", derivative(growingWalk)(0.7), fd1(growingWalk, 0.7));
compare("growing rev", gradient(growingWalk)(0.7), fd1(growingWalk, 0.7));
compare("forEachPush fwd", derivative(forEachPush)(0.7), fd1(forEachPush, 0.7));
compare("forEachPush rev", gradient(forEachPush)(0.7), fd1(forEachPush, 0.7));
compare("reverseAlias rev", gradient(reverseAlias)([3, 1, 2]), fdGrad(reverseAlias, [3, 1, 2]));
compare("assign fwd", derivative(assignExprs)(1.3), fd1(assignExprs, 1.3));
compare("assign rev", gradient(assignExprs)(1.3), fd1(assignExprs, 1.3));
// at x = 0 (x || y picks y) the function jumps; the branch taken has derivative [3, 2]
compare("or rev (x=0)", gradient(orFallback)(0, 2), [3, 2]);
compare("or rev", gradient(orFallback)(1.5, 2), [
  fd1((x) => orFallback(x, 2), 1.5),
  fd1((y) => orFallback(1.5, y), 2),
]);
// at y = 0 (y && … gives y) the function jumps; the branch taken has derivative [2, 1]
compare("or rev (y=0)", gradient(orFallback)(1.5, 0), [2, 1]);
compare("holes", derivative(holes)(1.2), fd1(holes, 1.2));
summary("p31-js-semantics");
