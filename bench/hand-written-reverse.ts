// Reverse derivatives (gradients) of the reverse-mode benchmark programs
// (bench/programs/gradient-*.ts), written by hand as a careful engineer would: a forward sweep
// that keeps what the backward sweep needs, then the adjoint sweep in reverse order. Straight-line
// code keeps its intermediate values in locals (no tape at all); loops save per iteration only
// what the backward sweep reads, in a preallocated Float64Array reused from call to call, or
// recompute the states backwards by inverting the step; the recursion saves one value per level.
// Each function returns the gradient as an array, like nabla's `gradient` operator.
import { Scratch } from "./scratch.js";

// ---- (a) straight-line: the energy of a chain of four atoms, 8 inputs ----

/** Gradient of `energy` (gradient-straight.ts): forward values in locals, then the adjoints. */
export function energyGradient(
  x1: number,
  y1: number,
  x2: number,
  y2: number,
  x3: number,
  y3: number,
  x4: number,
  y4: number,
): number[] {
  // Forward sweep: the primal, keeping every intermediate the adjoints read.
  const dx12 = x1 - x2;
  const dy12 = y1 - y2;
  const dx13 = x1 - x3;
  const dy13 = y1 - y3;
  const dx14 = x1 - x4;
  const dy14 = y1 - y4;
  const dx23 = x2 - x3;
  const dy23 = y2 - y3;
  const dx24 = x2 - x4;
  const dy24 = y2 - y4;
  const dx34 = x3 - x4;
  const dy34 = y3 - y4;
  const q12 = dx12 * dx12 + dy12 * dy12;
  const q13 = dx13 * dx13 + dy13 * dy13;
  const q14 = dx14 * dx14 + dy14 * dy14;
  const q23 = dx23 * dx23 + dy23 * dy23;
  const q24 = dx24 * dx24 + dy24 * dy24;
  const q34 = dx34 * dx34 + dy34 * dy34;
  const s12 = 1 / (q12 * q12 * q12);
  const s13 = 1 / (q13 * q13 * q13);
  const s14 = 1 / (q14 * q14 * q14);
  const s23 = 1 / (q23 * q23 * q23);
  const s24 = 1 / (q24 * q24 * q24);
  const s34 = 1 / (q34 * q34 * q34);
  const r12 = Math.sqrt(q12);
  const r23 = Math.sqrt(q23);
  const r34 = Math.sqrt(q34);
  const b12 = r12 - 1.2;
  const b23 = r23 - 1.2;
  const b34 = r34 - 1.2;
  const p = r12 * r23;
  const dot = dx12 * dx23 + dy12 * dy23;
  const cosine = -dot / p;
  const bend = Math.acos(cosine) - 1.9;
  const phi = Math.atan2(dy34, dx34) - Math.atan2(dy12, dx12);
  const wall = Math.exp(0.3 * (y1 + y2 + y3 + y4));

  // Backward sweep, seed 1. lj = 4 Σ (s² − s), s = q⁻³: ∂lj/∂q = 4 (2s − 1) · (−3 s / q).
  const q12b = (-12 * (2 * s12 - 1) * s12) / q12;
  const q13b = (-12 * (2 * s13 - 1) * s13) / q13;
  const q14b = (-12 * (2 * s14 - 1) * s14) / q14;
  const q24b = (-12 * (2 * s24 - 1) * s24) / q24;
  // bonds = 50 Σ b², b = r − 1.2; angles = 10 bend² + 2 (1 + cos φ).
  const cosb = (-20 * bend) / Math.sqrt(1 - cosine * cosine);
  const pb = (-cosb * cosine) / p;
  const dotb = -cosb / p;
  const r12b = 100 * b12 + pb * r23;
  const r23b = 100 * b23 + pb * r12;
  const r34b = 100 * b34;
  const phib = -2 * Math.sin(phi);
  // q = r², so ∂r/∂q = 1 / (2r); the atan2 partials reuse q = dx² + dy².
  const q12t = q12b + r12b / (2 * r12);
  const q23t = (-12 * (2 * s23 - 1) * s23) / q23 + r23b / (2 * r23);
  const q34t = (-12 * (2 * s34 - 1) * s34) / q34 + r34b / (2 * r34);
  const a34 = phib / q34;
  const a12 = phib / q12;
  const dx12b = 2 * dx12 * q12t + dotb * dx23 + a12 * dy12;
  const dy12b = 2 * dy12 * q12t + dotb * dy23 - a12 * dx12;
  const dx13b = 2 * dx13 * q13b;
  const dy13b = 2 * dy13 * q13b;
  const dx14b = 2 * dx14 * q14b;
  const dy14b = 2 * dy14 * q14b;
  const dx23b = 2 * dx23 * q23t + dotb * dx12;
  const dy23b = 2 * dy23 * q23t + dotb * dy12;
  const dx24b = 2 * dx24 * q24b;
  const dy24b = 2 * dy24 * q24b;
  const dx34b = 2 * dx34 * q34t - a34 * dy34;
  const dy34b = 2 * dy34 * q34t + a34 * dx34;
  const wallb = 0.3 * wall;
  return [
    dx12b + dx13b + dx14b,
    dy12b + dy13b + dy14b + wallb,
    -dx12b + dx23b + dx24b,
    -dy12b + dy23b + dy24b + wallb,
    -dx13b - dx23b + dx34b,
    -dy13b - dy23b + dy34b + wallb,
    -dx14b - dx24b - dx34b,
    -dy14b - dy24b - dy34b + wallb,
  ];
}

// ---- (b) loop: the damped pendulum with parameters k, c ----

const pendulumTape = new Scratch();

/**
 * Gradient of `pendulum` (gradient-loop.ts) with respect to k, c, theta0, saving 3 values per
 * iteration: sin θᵢ and cos θᵢ (which the primal computes anyway, one step apart) and ωᵢ. The
 * backward sweep then calls no Math function at all.
 */
export function pendulumGradientTaped(
  k: number,
  c: number,
  theta0: number,
  steps: number,
): number[] {
  const h = 1e-5;
  const tape = pendulumTape.reserve(3 * steps);
  let theta = theta0;
  let omega = 0;
  let cosTheta = Math.cos(theta0);
  for (let i = 0, j = 0; i < steps; i++, j += 3) {
    const s = Math.sin(theta);
    tape[j] = s;
    tape[j + 1] = cosTheta;
    tape[j + 2] = omega;
    omega = omega - (k * s + c * omega) * h;
    theta = theta + omega * h;
    cosTheta = Math.cos(theta);
    // energy += (0.5 ω² − k cos θ) h: its value is not needed for the gradient.
  }
  // Adjoints of θ, ω at the end: the result is θ + energy and energy's adjoint stays 1.
  let thetaB = 1;
  let omegaB = 0;
  let kB = 0;
  let cB = 0;
  // sin/cos of θᵢ₊₁ and ωᵢ₊₁ for step i, starting with the final state.
  let sinNext = Math.sin(theta);
  let cosNext = cosTheta;
  let omegaNext = omega;
  for (let j = 3 * steps - 3; j >= 0; j -= 3) {
    const s = tape[j]!;
    const co = tape[j + 1]!;
    const om = tape[j + 2]!;
    // energy += (0.5 ω' ω' − k cos θ') h
    omegaB += h * omegaNext;
    thetaB += h * k * sinNext;
    kB -= h * cosNext;
    // θ' = θ + ω' h
    omegaB += h * thetaB;
    // ω' = ω − (k sin θ + c ω) h
    const w = h * omegaB;
    thetaB -= w * k * co;
    kB -= w * s;
    cB -= w * om;
    omegaB -= w * c;
    sinNext = s;
    cosNext = co;
    omegaNext = om;
  }
  return [kB, cB, thetaB];
}

/**
 * The same gradient without a tape: the Euler step is invertible (θᵢ = θᵢ₊₁ − ωᵢ₊₁ h, then
 * ωᵢ = (ωᵢ₊₁ + k sin θᵢ h) / (1 − c h)), so the backward sweep recomputes the states from
 * the final one, in reverse. It calls sin and cos again per iteration and its states differ
 * from the forward ones by rounding (the agreement check bounds the effect).
 */
export function pendulumGradientInverted(
  k: number,
  c: number,
  theta0: number,
  steps: number,
): number[] {
  const h = 1e-5;
  let theta = theta0;
  let omega = 0;
  for (let i = 0; i < steps; i++) {
    omega = omega - (k * Math.sin(theta) + c * omega) * h;
    theta = theta + omega * h;
  }
  const damping = 1 / (1 - c * h);
  let thetaB = 1;
  let omegaB = 0;
  let kB = 0;
  let cB = 0;
  let sinNext = Math.sin(theta);
  let cosNext = Math.cos(theta);
  for (let i = steps - 1; i >= 0; i--) {
    omegaB += h * omega;
    thetaB += h * k * sinNext;
    kB -= h * cosNext;
    omegaB += h * thetaB;
    // Step back to θᵢ, ωᵢ.
    theta = theta - omega * h;
    const s = Math.sin(theta);
    const co = Math.cos(theta);
    omega = (omega + k * s * h) * damping;
    const w = h * omegaB;
    thetaB -= w * k * co;
    kB -= w * s;
    cB -= w * omega;
    omegaB -= w * c;
    sinNext = s;
    cosNext = co;
  }
  return [kB, cB, thetaB];
}

/** Float64 entries the taped pendulum gradient used in its last call. */
export function pendulumTapeEntries(): number {
  return pendulumTape.used;
}

// ---- (c) branches in a loop: the asymmetric oscillator ----

const oscillatorTape = new Scratch();

/**
 * Gradient of `oscillator` (gradient-branches.ts) with respect to k, c, b, x0, saving 3 values
 * per iteration: xᵢ (which also tells the branch taken), vᵢ and sin xᵢ (computed by the
 * forward sweep in the x > 0 branch only). The backward sweep computes cos xᵢ in that branch.
 */
export function oscillatorGradientTaped(
  k: number,
  c: number,
  b: number,
  x0: number,
  steps: number,
): number[] {
  const h = 1e-3;
  const tape = oscillatorTape.reserve(3 * steps);
  let x = x0;
  let v = 0;
  for (let i = 0, j = 0; i < steps; i++, j += 3) {
    tape[j] = x;
    tape[j + 1] = v;
    let acc: number;
    if (x > 0) {
      const s = Math.sin(x);
      tape[j + 2] = s;
      acc = -k * s - c * v;
    } else {
      acc = -k * x * (1 + b * x * x) - c * v;
    }
    v = v + acc * h;
    x = x + v * h;
    // cost += x² h: its value is not needed for the gradient.
  }
  // The result is x + cost, and cost's adjoint stays 1.
  let xB = 1;
  let vB = 0;
  let kB = 0;
  let cB = 0;
  let bB = 0;
  let xNext = x;
  for (let j = 3 * steps - 3; j >= 0; j -= 3) {
    const xi = tape[j]!;
    const vi = tape[j + 1]!;
    // cost += x' x' h
    xB += 2 * h * xNext;
    // x' = x + v' h
    vB += h * xB;
    // v' = v + acc h
    const accB = h * vB;
    if (xi > 0) {
      const s = tape[j + 2]!;
      kB -= accB * s;
      xB -= accB * k * Math.cos(xi);
    } else {
      const xx = xi * xi;
      kB -= accB * xi * (1 + b * xx);
      bB -= accB * k * xx * xi;
      xB -= accB * k * (1 + 3 * b * xx);
    }
    cB -= accB * vi;
    vB -= accB * c;
    xNext = xi;
  }
  return [kB, cB, bB, xB];
}

/**
 * The same gradient without a tape, recomputing the states backwards: xᵢ = xᵢ₊₁ − vᵢ₊₁ h,
 * then vᵢ = (vᵢ₊₁ − F(xᵢ) h) / (1 − c h), where F is the spring force of the branch xᵢ picks.
 */
export function oscillatorGradientInverted(
  k: number,
  c: number,
  b: number,
  x0: number,
  steps: number,
): number[] {
  const h = 1e-3;
  let x = x0;
  let v = 0;
  for (let i = 0; i < steps; i++) {
    let acc: number;
    if (x > 0) {
      acc = -k * Math.sin(x) - c * v;
    } else {
      acc = -k * x * (1 + b * x * x) - c * v;
    }
    v = v + acc * h;
    x = x + v * h;
  }
  const damping = 1 / (1 - c * h);
  let xB = 1;
  let vB = 0;
  let kB = 0;
  let cB = 0;
  let bB = 0;
  for (let i = steps - 1; i >= 0; i--) {
    xB += 2 * h * x;
    vB += h * xB;
    const accB = h * vB;
    x = x - v * h;
    if (x > 0) {
      const s = Math.sin(x);
      v = (v + k * s * h) * damping;
      kB -= accB * s;
      xB -= accB * k * Math.cos(x);
    } else {
      const xx = x * x;
      v = (v + k * x * (1 + b * xx) * h) * damping;
      kB -= accB * x * (1 + b * xx);
      bB -= accB * k * xx * x;
      xB -= accB * k * (1 + 3 * b * xx);
    }
    cB -= accB * v;
    vB -= accB * c;
  }
  return [kB, cB, bB, xB];
}

/** Float64 entries the taped oscillator gradient used in its last call. */
export function oscillatorTapeEntries(): number {
  return oscillatorTape.used;
}

// ---- (d) recursion: the nested radical ----

const radicalTape = new Scratch();
let radicalValues: Float64Array = radicalTape.array;

/** The recursion of `radical`, saving the value of level n at index n. */
function radicalForward(x: number, a: number, n: number): number {
  if (n === 0) {
    radicalValues[0] = 1;
    return 1;
  }
  const r = Math.sqrt(n * a + x * radicalForward(x, a, n - 1));
  radicalValues[n] = r;
  return r;
}

/**
 * Gradient of `radical(x, a, depth)` (gradient-recursive.ts) with respect to x and a: the
 * forward sweep is the same recursion, saving each level's value (one float64 per level);
 * the backward sweep walks the levels down in a loop: rₙ = √(n a + x rₙ₋₁) gives
 * ∂rₙ/∂rₙ₋₁ = x / (2 rₙ), ∂rₙ/∂x = rₙ₋₁ / (2 rₙ), ∂rₙ/∂a = n / (2 rₙ).
 */
export function radicalGradient(x: number, a: number, depth: number): number[] {
  radicalValues = radicalTape.reserve(depth + 1);
  radicalForward(x, a, depth);
  const values = radicalValues;
  let rB = 1;
  let xB = 0;
  let aB = 0;
  for (let n = depth; n > 0; n--) {
    const q = rB / (2 * values[n]!);
    xB += q * values[n - 1]!;
    aB += q * n;
    rB = q * x;
  }
  return [xB, aB];
}

/** Float64 entries the radical gradient used in its last call. */
export function radicalTapeEntries(): number {
  return radicalTape.used;
}
