import { test } from "node:test";
import { checkBackends } from "./support/wasm-backends.js";

// The WebAssembly backend on the zero tangent of an array of arrays or of an object holding
// arrays: a value the function starts from that does not depend on the inputs (an identity
// matrix, an initial state), then carried around a loop with values that do. Before, such a
// function kept its JavaScript (NABLA202, "a zero tangent of an array of arrays").

test("a matrix product started from an identity matrix", async () => {
  await checkBackends(
    `type Matrix = number[][];

function identity(n: number): Matrix {
  const out: Matrix = [];
  for (let i = 0; i < n; i++) {
    const row = new Array<number>(n).fill(0);
    row[i] = 1;
    out.push(row);
  }
  return out;
}

function matMul(a: Matrix, b: Matrix): Matrix {
  const out: Matrix = [];
  for (let i = 0; i < a.length; i++) {
    const row: number[] = [];
    for (let j = 0; j < b[0].length; j++) {
      let sum = 0;
      for (let k = 0; k < b.length; k++) sum += a[i][k] * b[k][j];
      row.push(sum);
    }
    out.push(row);
  }
  return out;
}

function rotation(angle: number): Matrix {
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  return [
    [c, -s],
    [s, c],
  ];
}

export function f(angles: number[], p: number[]): number {
  let pose = identity(2);
  for (const angle of angles) pose = matMul(pose, rotation(angle));
  const x = pose[0][0] * p[0] + pose[0][1] * p[1];
  const y = pose[1][0] * p[0] + pose[1][1] * p[1];
  return x * x + 3 * y;
}`,
    [
      [
        [0.3, -1.2, 0.7],
        [1.5, -0.5],
      ],
      [[2], [0.25, 4]],
    ],
  );
});

test("a state of arrays started from a module-level constant", async () => {
  await checkBackends(
    `interface Body {
  position: number[];
  velocity: number[];
  mass: number;
}

const START: Body = { position: [0, 0], velocity: [1, 0], mass: 2 };

export function f(force: number[], dt: number): number {
  let body = START;
  for (let step = 0; step < 4; step++) {
    body = {
      position: body.position.map((x, i) => x + dt * body.velocity[i]),
      velocity: body.velocity.map((v, i) => v + (dt * force[i]) / body.mass),
      mass: body.mass,
    };
  }
  return body.position[0] * body.position[1] + body.velocity[0];
}`,
    [
      [[0.5, -2], 0.1],
      [[3, 1.5], 0.25],
    ],
  );
});

test("a state of arrays updated in place by a helper", async () => {
  await checkBackends(
    `interface Body {
  position: number[];
  velocity: number[];
}

function advance(body: Body, force: number[], dt: number): void {
  for (let i = 0; i < body.position.length; i++) {
    body.position[i] += dt * body.velocity[i];
    body.velocity[i] += dt * force[i];
  }
}

export function f(force: number[], dt: number): number {
  const body: Body = { position: [0, 0], velocity: [1, 0] };
  const path: Body[] = [];
  for (let step = 0; step < 3; step++) {
    advance(body, force, dt);
    path.push({ position: body.position.slice(), velocity: body.velocity.slice() });
  }
  let s = 0;
  for (const b of path) s += b.position[0] * b.velocity[1] + b.position[1];
  return s;
}`,
    [
      [[0.5, -2], 0.1],
      [[3, 1.5], 0.25],
    ],
  );
});
