// A model class hierarchy: an abstract Model with a template method loss() calling an
// overridden predict(), a subclass adding regularization via super.loss(), a static factory
// and a static instance counter; gradients w.r.t. a parameter array held by the instance.
import { gradient, differential, hessianVectorProduct } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

abstract class Model {
  static created = 0;
  constructor(public params: number[]) {}
  abstract predict(x: number): number;
  loss(xs: readonly number[], ys: readonly number[]): number {
    let s = 0;
    for (let i = 0; i < xs.length; i++) s += (this.predict(xs[i]) - ys[i]) ** 2;
    return s / xs.length;
  }
}

class Polynomial extends Model {
  predict(x: number): number {
    // Horner
    return this.params.reduceRight((acc, c) => acc * x + c, 0);
  }
}

class RidgePolynomial extends Polynomial {
  constructor(
    params: number[],
    private readonly lambda: number,
  ) {
    super(params);
  }
  override loss(xs: readonly number[], ys: readonly number[]): number {
    const penalty = this.params.slice(1).reduce((s, c) => s + c * c, 0);
    return super.loss(xs, ys) + this.lambda * penalty;
  }
  static create(degree: number, lambda = 0.1): RidgePolynomial {
    return new RidgePolynomial(Array.from({ length: degree + 1 }, () => 0), lambda);
  }
}

class Rational extends Model {
  override predict(x: number): number {
    const [a, b, c] = this.params;
    return (a + b * x) / (1 + c * c * x * x);
  }
}

const xs = [-1, -0.5, 0, 0.5, 1, 1.5];
const ys = xs.map((x) => Math.tanh(2 * x));

function ridgeLoss(params: number[]): number {
  const m = RidgePolynomial.create(params.length - 1, 0.05);
  m.params = params;
  return m.loss(xs, ys);
}

function ensembleLoss(params: number[]): number {
  const models: Model[] = [new Polynomial(params.slice(0, 3)), new Rational(params.slice(3, 6)), new RidgePolynomial(params.slice(6), 0.2)];
  return models.reduce((s, m) => s + m.loss(xs, ys), 0);
}

const p = [0.1, 1.2, -0.3, 0.05];
const g = gradient(ridgeLoss)(p);
compare("ridge grad vs fd", g, fdGrad(ridgeLoss, p));
compare("ridge fwd vs rev", differential(ridgeLoss)(p)([1, 0, 0, 1]), g[0] + g[3]);
const q = [0.1, 1.2, -0.3, 0.2, 1.5, 0.7, 0, 1, 0.1];
const ge = gradient(ensembleLoss)(q);
compare("ensemble grad vs fd", ge, fdGrad(ensembleLoss, q));
const v = q.map((_, i) => (i % 2 ? 1 : -1));
compare("ensemble fwd vs rev", differential(ensembleLoss)(q)(v), ge.reduce((s, gi, i) => s + gi * v[i], 0));
compare("hvp vs fd", hessianVectorProduct(ensembleLoss)(q, v), fdGrad((w) => gradient(ensembleLoss)(w).reduce((s, gi, i) => s + gi * v[i], 0), q));
summary("s20-model-hierarchy");
