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
  valueWithDifferential,
  valueWithGradient,
  valueWithPullback,
  withDerivative,
} from "../src/runtime/index.js";
import type { WrtChecked } from "../src/runtime/tangent-types.js";

declare function three(x: number, y: number, z: number): number;
declare function one(x: number): number;
interface Params {
  w: Float64Array;
  layers: { b: number[]; scale: number }[];
  name: string;
  pair: [number, number];
}
declare function loss(p: Params, data: readonly number[], label: string): number;
declare function fitted(p: Params, xs: number[]): number[];
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
declare function energy(positions: Float64Array, stiffness: number): number;
declare function rowNorms(m: number[][]): number[];
declare function masked(x: Float64Array, mask: Uint8Array, labels: Int32Array): number;
interface Csr {
  rows: Int32Array;
  cols: Int32Array;
  vals: Float64Array;
}
declare function spmv(a: Csr, x: Float64Array): number;
declare function frobenius(m: number[][]): number;

declare function fitAux(
  w: number[],
  xs: number[],
): [number, { predictions: number[]; label: string }];
declare function fitObject(w: number, x: number): { value: number; aux: string };

declare const p: Params;
declare const m: Model;

// For `wrt`: parameters without a tangent, rest and optional parameters, a generic function.
declare function labeled(x: number, on: boolean, name: string): number;
declare function settings(x: number, s: { mode: string }): number;
declare function variadic(x: number, ...ys: number[]): number;
declare function optional(x: number, y?: number): number;
declare function regularized(x: number[], lambda?: number): number;
declare function onlyOptional(on: boolean, x?: number): number;
enum Activation {
  Tanh,
  Relu,
}
declare function layer(x: number, act: Activation, order: 1 | 2): number;
declare function loose(x: any, y: unknown): number; // eslint-disable-line @typescript-eslint/no-explicit-any
declare function generic<T extends number[]>(xs: T, label: string): number;
declare const i: number;
declare const indices: readonly number[];
const pair = [1, 0] as const;

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
  // Integer typed arrays have no tangent: not differentiated by default, left out of objects.
  (): Float64Array => gradient(masked)(new Float64Array(1), new Uint8Array(1), new Int32Array(1)),
  (): [{ vals: Float64Array }, Float64Array] =>
    gradient(spmv)(
      { rows: new Int32Array(1), cols: new Int32Array(0), vals: new Float64Array(0) },
      new Float64Array(1),
    ),
  (): Float64Array => derivative(curve)(1),
  (): { value: Float64Array; derivative: Float64Array } => valueWithDerivative(curve)(1),
  (): [number, number] => differential(polar)(1, 2)(1, 0),
  (): [number, number] => pullback(polar)(1, 2)([1, 0]),
  (): number[] => valueWithPullback(stats)([1]).pullback({ mean: 1 }),
  (): number => derivative(derivative(one))(1),
  (): Float64Array[] => hessian(rosen)(new Float64Array(2)),
  // With respect to several parameters: rows of blocks, [a][b] = ∂²f/∂x_a∂x_b.
  (): [[number, number[]], [number[], number[][]]] => hessian(mixed)(1, [2]),
  (): [[number[][], number[]], [number[], number]] => hessian(mixed, { wrt: [1, 0] })(1, [2]),
  (): [[number, number], [number, number]] => hessian(three, { wrt: [2, 0] })(1, 2, 3),
  (): [[Float64Array[], Float64Array], [Float64Array, number]] =>
    hessian(energy)(new Float64Array(2), 1),
  (): number[][] => hessian(mixed, { wrt: [1] })(1, [2]),
  // With respect to rows: each row of the Jacobian shaped like them.
  (): number[][][] => jacobian(rowNorms)([[1, 2]]),
  (): number[][] => jacobian(frobenius)([[1, 2]]),
  (): number => hessian(one)(1),
  (): Float64Array => hessianVectorProduct(rosen)(new Float64Array(2), new Float64Array(2)),
  (): { gradient: Float64Array; hessianVectorProduct: Float64Array } =>
    gradientAndHessianVectorProduct(rosen)(new Float64Array(2), new Float64Array(2)),
  (): Float64Array => jacobian(rosen)(new Float64Array(2)),
  (): number[] => jacobian(polar, { wrt: 1 })(1, 2),
  // With respect to several parameters: a tuple per row, in wrt's order.
  (): [number, number][] => jacobian(polar)(1, 2),
  (): [number, number][] => jacobian(polar, { wrt: [1, 0] })(1, 2),
  (): [number, number] => jacobian(three, { wrt: [2, 0] })(1, 2, 3),
  // With respect to an object: rows shaped like its tangent.
  (): ParamsTangent[] => jacobian(fitted, { wrt: 0 })(p, [1]),
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
  // Without `wrt`, optional and defaulted parameters are settings, not differentiated, unless
  // no required parameter has a tangent.
  (): number[] => gradient(regularized)([1, 2]),
  (): number[] => gradient(regularized)([1, 2], 0.5),
  (): [number[], number] => gradient(regularized, { wrt: [0, 1] })([1, 2], 0.5),
  (): number => differential(regularized)([1, 2])([1, 0]),
  (): number[][] => hessian(regularized)([1, 2]),
  (): number => gradient(optional)(1, 2),
  (): number => gradient(onlyOptional)(true, 1),
  // An enum or number literals are a choice, not differentiated without `wrt`.
  (): number => gradient(layer)(1, Activation.Tanh, 2),
  (): [number, number] => gradient(layer, { wrt: [0, 1] })(1, Activation.Relu, 1),
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
  // @ts-expect-error a Hessian with respect to several parameters is rows of blocks
  (): number[][] => hessian(mixed)(1, [2]),
  // @ts-expect-error block [0][1] of a number and an array is shaped like the array
  (): [[number, number], [number[], number[][]]] => hessian(mixed)(1, [2]),
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

  // wrt: what compiles, each index naming a parameter that has a tangent.
  (): [number, number, number] => gradient(three, { wrt: undefined })(1, 2, 3),
  (): [number, number] => gradient(three, { wrt: pair })(1, 2, 3),
  (): number[] => gradient(three, { wrt: indices })(1, 2, 3),
  (): number => gradient(three, { wrt: i })(1, 2, 3),
  (): number => gradient(labeled, { wrt: 0 })(1, true, "x"),
  (): number => gradient(variadic, { wrt: 5 })(1, 2, 3, 4, 5, 6),
  (): [number, number] => gradient(variadic, { wrt: [0, 2] })(1, 2, 3),
  (): number => gradient(optional, { wrt: 1 })(1, 2),
  (): number => differential(optional, { wrt: [1] })(1, 2)(1),
  () => gradient(loose, { wrt: [0, 1] }),
  (): number[] => gradient(generic, { wrt: 0 })([1], "x"),
  (): { gradient: number[]; aux: { predictions: number[]; label: string } } =>
    gradient(fitAux, { wrt: [1], hasAux: true })([1], [2]),
  (): number[] => jacobian(polar, { wrt: 0, mode: "forward" })(1, 2),
  (): { value: number; differential: (dt: number) => number } =>
    valueWithDifferential(three, { wrt: 2 })(1, 2, 3),
  // In generic code, wrt is checked against the function's constraint.
  <G extends (x: number, y: number) => number>(g: G) => gradient(g, { wrt: 1 }),
  <G extends ScalarOf<never[]>>(g: G) => pullback(g, { wrt: [3, 0] }),
  <const O extends { wrt?: 0 | 2 }>(o: O) => gradient(three, o),

  // wrt: a type error at the call, the option's type being the message (pinned below).
  // @ts-expect-error out of range
  () => gradient(three, { wrt: 3 }),
  // @ts-expect-error out of range, in a list
  () => gradient(three, { wrt: [0, 3] }),
  // @ts-expect-error negative
  () => gradient(three, { wrt: -1 }),
  // @ts-expect-error negative, in a list
  () => differential(three, { wrt: [-1] }),
  // @ts-expect-error a string parameter has no tangent
  () => gradient(loss, { wrt: 2 }),
  // @ts-expect-error a string parameter has no tangent, in a list
  () => differential(loss, { wrt: [0, 2] }),
  // @ts-expect-error a boolean parameter has no tangent
  () => valueWithGradient(labeled, { wrt: [1] }),
  // @ts-expect-error an object without numbers has no tangent
  () => pullback(settings, { wrt: 1 }),
  // @ts-expect-error an integer typed array has no tangent
  () => gradient(masked, { wrt: [0, 2] }),
  // @ts-expect-error out of range, with hasAux
  () => gradient(fitAux, { wrt: 2, hasAux: true }),
  // @ts-expect-error out of range, in a list, with hasAux
  () => valueWithGradient(fitObject, { wrt: [0, 1, 2], hasAux: true }),
  // @ts-expect-error out of range
  () => valueWithDifferential(one, { wrt: 1 }),
  // @ts-expect-error out of range
  () => valueWithPullback(polar, { wrt: [2] }),
  // @ts-expect-error a string parameter has no tangent
  () => hessian(loss, { wrt: 2 }),
  // @ts-expect-error out of range
  () => hessianVectorProduct(rosen, { wrt: 1 }),
  // @ts-expect-error negative
  () => gradientAndHessianVectorProduct(rosen, { wrt: -1 }),
  // @ts-expect-error out of range, with mode
  () => jacobian(polar, { wrt: 2, mode: "reverse" }),
  // @ts-expect-error out of range: y is optional, but there is no third parameter
  () => gradient(optional, { wrt: 2 }),
  // @ts-expect-error negative, with rest parameters
  () => gradient(variadic, { wrt: -1 }),
  // @ts-expect-error a generic function's string parameter
  () => gradient(generic, { wrt: 1 }),
  // @ts-expect-error out of range for every function G may be
  <G extends (x: number, y: number) => number>(g: G) => gradient(g, { wrt: 2 }),
  // @ts-expect-error not an integer
  () => gradient(three, { wrt: 0.5 }),
  // @ts-expect-error listed twice
  () => gradient(three, { wrt: [1, 1] }),
  // @ts-expect-error empty
  () => gradient(three, { wrt: [] }),
];

type ScalarOf<P extends unknown[]> = (...args: P) => number;

/** Whether A and B are the same type. */
type Same<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** The type a `wrt` written at a call of f gets: itself, or the message the editor shows. */
type WrtAsChecked<
  F extends (...args: never[]) => unknown,
  W extends number | readonly number[],
> = WrtChecked<F, { readonly wrt: W }>["wrt"];

// The messages: `Type 'number' is not assignable to type '"…"'` at the wrong index.
export const messages: [
  Same<WrtAsChecked<typeof three, 3>, "wrt index 3 is out of range: the function has 3 parameters">,
  Same<WrtAsChecked<typeof one, 1>, "wrt index 1 is out of range: the function has 1 parameter">,
  Same<
    WrtAsChecked<typeof three, -1>,
    "wrt index -1 is out of range: the function has 3 parameters"
  >,
  Same<
    WrtAsChecked<typeof variadic, -1>,
    "wrt index -1 is out of range: parameter indices start at 0"
  >,
  Same<
    WrtAsChecked<typeof optional, readonly [0, 2]>,
    readonly [0, "wrt index 2 is out of range: the function has 2 parameters"]
  >,
  Same<
    WrtAsChecked<typeof loss, readonly [2, 0]>,
    readonly ["wrt index 2 names a string parameter, which has no tangent", 0]
  >,
  Same<
    WrtAsChecked<typeof labeled, 1>,
    "wrt index 1 names a boolean parameter, which has no tangent"
  >,
  Same<
    WrtAsChecked<typeof settings, 1>,
    "wrt index 1 names an object parameter with no differentiable fields (numbers, arrays of numbers…)"
  >,
  Same<
    WrtAsChecked<typeof masked, 1>,
    "wrt index 1 names an integer typed array parameter, which has no tangent"
  >,
  Same<WrtAsChecked<typeof three, 0.5>, "wrt index 0.5 is not an integer">,
  Same<WrtAsChecked<typeof three, readonly [1, 1]>, readonly [1, "wrt lists parameter 1 twice"]>,
  Same<WrtAsChecked<typeof three, readonly []>, "wrt must name at least one parameter">,
  // What passes is the option's own type.
  Same<WrtAsChecked<typeof three, readonly [2, 0]>, readonly [2, 0]>,
  Same<WrtAsChecked<typeof variadic, 7>, 7>,
  Same<WrtAsChecked<typeof three, number>, number>,
] = [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true];
