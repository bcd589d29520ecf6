// Compile-time checks of the operators' TypeScript types: `npm run build` type-checks this
// file, so a regression in what users' editors show fails the build. It is never run.
import {
  derivative,
  differential,
  gradient,
  pullback,
  valueWithDerivative,
  valueWithGradient,
  valueWithPullback,
} from "../src/runtime/index.js";

declare function three(x: number, y: number, z: number): number;
declare function one(x: number): number;
interface Params {
  w: Float64Array;
  layers: { b: number[]; scale: number }[];
  name: string;
  pair: [number, number];
}
declare function loss(p: Params, data: readonly number[], label: string): number;
declare class Model {
  weights: Float32Array;
  bias: number;
  training: boolean;
  predict(x: number): number;
}
declare function fit(m: Model, lr: number): number;
type ParamsTangent = {
  w: Float64Array;
  layers: { b: number[]; scale: number }[];
  pair: [number, number];
};

declare const p: Params;
declare const m: Model;

export const checks = [
  (): number => derivative(one)(1),
  (): { value: number; derivative: number } => valueWithDerivative(one)(1),
  (): number => differential(three)(1, 2, 3)(1, 0, 0),
  (): number => gradient(one)(1),
  (): [number, number, number] => gradient(three)(1, 2, 3),
  (): number => gradient(three, { wrt: 1 })(1, 2, 3),
  (): number => gradient(three, { wrt: [2] })(1, 2, 3),
  (): [number, number] => gradient(three, { wrt: [2, 0] })(1, 2, 3),
  (): { value: number; gradient: number } => valueWithGradient(one)(2),
  (): [number, number, number] => pullback(three)(1, 2, 3)(1),
  (): number => valueWithPullback(one)(2).pullback(1),
  (): ParamsTangent => gradient(loss, { wrt: 0 })(p, [1], "x"),
  (): [ParamsTangent, number[]] => gradient(loss)(p, [1], "x"),
  (): { weights: Float32Array; bias: number } => gradient(fit, { wrt: 0 })(m, 0.1),
  (): [{ weights: Float32Array; bias: number }, number] => gradient(fit)(m, 0.1),
  (): number => differential(loss, { wrt: [0] })(p, [1], "x")(p),
  // @ts-expect-error a string field has no tangent
  (): string => gradient(loss, { wrt: 0 })(p, [1], "x").name,
  // @ts-expect-error several parameters give a tuple, not a number
  (): number => gradient(three)(1, 2, 3),
  // @ts-expect-error the arguments are the function's
  (): number => gradient(one)("1"),
];
