// Compile-time checks of the operators' TypeScript types: `npm run build` type-checks this
// file, so a regression in what users' editors show fails the build. It is never run.
import {
  checkpoint,
  derivative,
  differential,
  gradient,
  hessian,
  hessianVectorProduct,
  gradientAndHessianVectorProduct,
  jacobian,
  pullback,
  registerDerivative,
  valueWithDerivative,
  valueWithGradient,
  valueWithPullback,
  withDerivative,
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

declare function curve(t: number): Float64Array;
declare function polar(r: number, t: number): [number, number];
declare function stats(xs: number[]): { mean: number; label: string };
declare function rosen(x: Float64Array): number;
declare function lse(xs: number[]): number;
declare function mixed(x: number, xs: number[]): number;

declare function fitAux(
  w: number[],
  xs: number[],
): [number, { predictions: number[]; label: string }];
declare function fitObject(w: number, x: number): { value: number; aux: string };

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
  (): Float64Array => derivative(curve)(1),
  (): { value: Float64Array; derivative: Float64Array } => valueWithDerivative(curve)(1),
  (): [number, number] => differential(polar)(1, 2)(1, 0),
  (): [number, number] => pullback(polar)(1, 2)([1, 0]),
  (): number[] => valueWithPullback(stats)([1]).pullback({ mean: 1 }),
  (): number => derivative(derivative(one))(1),
  (): Float64Array[] => hessian(rosen)(new Float64Array(2)),
  (): number => hessian(one)(1),
  (): Float64Array => hessianVectorProduct(rosen)(new Float64Array(2), new Float64Array(2)),
  (): { gradient: Float64Array; hessianVectorProduct: Float64Array } =>
    gradientAndHessianVectorProduct(rosen)(new Float64Array(2), new Float64Array(2)),
  (): Float64Array => jacobian(rosen)(new Float64Array(2)),
  (): number[] => jacobian(polar, { wrt: 1 })(1, 2),
  // hasAux: the aux's type comes through, the gradient's as without it.
  (): { gradient: number[]; aux: { predictions: number[]; label: string } } =>
    gradient(fitAux, { wrt: 0, hasAux: true })([1], [2]),
  (): { value: number; gradient: [number[], number[]]; aux: { label: string } } =>
    valueWithGradient(fitAux, { hasAux: true })([1], [2]),
  (): { value: number; gradient: number; aux: string } =>
    valueWithGradient(fitObject, { wrt: 0, hasAux: true })(1, 2),
  (): { gradient: number; aux: string } =>
    gradient((w: number) => [w * w, "label"], { hasAux: true })(1),
  (): number => gradient(one, { hasAux: false })(1),
  (): number[] => jacobian(polar, { wrt: 1, mode: "reverse" })(1, 2),
  (): Float64Array => jacobian(rosen, { mode: "forward" })(new Float64Array(2)),
  (): number => withDerivative(1, (d) => d * 2),
  (): number => checkpoint(one)(1),
  () =>
    registerDerivative(lse, {
      forward: (xs: number[], dxs: number[]) => ({ value: xs[0]!, tangent: dxs[0]! }),
      reverse: (xs) => ({ value: xs[0]!, pullback: (dy: number) => xs.map(() => dy) }),
    }),
  () =>
    registerDerivative(mixed, {
      reverse: (x, xs) => ({ value: x, pullback: (dy) => [dy, xs.map(() => 0)] }),
    }),
  () =>
    registerDerivative(one, {
      // @ts-expect-error the forward rule returns the tangent of a number
      forward: (x: number, dx: number) => ({ value: x, tangent: [dx] }),
    }),
  // @ts-expect-error the adjoint of a pair is a pair
  (): [number, number] => pullback(polar)(1, 2)(1),
  // @ts-expect-error a string field has no tangent
  (): string => gradient(loss, { wrt: 0 })(p, [1], "x").name,
  // @ts-expect-error several parameters give a tuple, not a number
  (): number => gradient(three)(1, 2, 3),
  // @ts-expect-error the arguments are the function's
  (): number => gradient(one)("1"),
  // @ts-expect-error hasAux needs f to return [loss, aux] or { value, aux }
  () => gradient(one, { hasAux: true }),
  // @ts-expect-error without hasAux, f must return a number
  () => gradient(fitAux, { wrt: 0 }),
  // @ts-expect-error the aux is the function's
  (): { gradient: number; aux: number } => gradient(fitObject, { wrt: 0, hasAux: true })(1, 2),
  // @ts-expect-error mode is "forward" or "reverse"
  () => jacobian(polar, { wrt: 1, mode: "sideways" }),
  // @ts-expect-error mode is an option of jacobian
  () => gradient(one, { mode: "forward" }),
  // @ts-expect-error hasAux is an option of gradient and valueWithGradient
  () => jacobian(rosen, { hasAux: true }),
];
