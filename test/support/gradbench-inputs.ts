// Small, seeded inputs for the GradBench evals in gradbench/evals, shaped like the `input`
// objects GradBench sends (see gradbench/README.md), so the tests need no reference data.
// Every generator is deterministic: the same seed gives the same input.

/** A seeded generator of uniform numbers in [0, 1) (mulberry32). */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  uniform(lo = 0, hi = 1): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const u = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return lo + (hi - lo) * u;
  }

  /** Standard normal (Box–Muller). */
  normal(mean = 0, sd = 1): number {
    const u = 1 - this.uniform();
    const v = this.uniform();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  int(n: number): number {
    return Math.floor(this.uniform() * n);
  }

  uniforms(n: number, lo = 0, hi = 1): number[] {
    return Array.from({ length: n }, () => this.uniform(lo, hi));
  }

  normals(n: number, mean = 0, sd = 1): number[] {
    return Array.from({ length: n }, () => this.normal(mean, sd));
  }
}

/** GradBench's run-count fields, which every input but hello's carries. */
const RUNS = { min_runs: 1, min_seconds: 0 };

// --- hello, llsq, lse, det, ode, kmeans -----------------------------------------------------

export function helloInput(x: number): number {
  return x;
}

export interface LlsqInput {
  x: number[];
  n: number;
}

export function llsqInput(seed: number, m: number, n: number): LlsqInput {
  const rng = new Rng(seed);
  return { x: rng.uniforms(m), n, ...RUNS };
}

export interface LseInput {
  x: number[];
}

/** Uniform on [offset, offset + 1), as GradBench's (offset 0); a large offset tests stability. */
export function lseInput(seed: number, n: number, offset = 0): LseInput {
  const rng = new Rng(seed);
  return { x: rng.uniforms(n, offset, offset + 1), ...RUNS };
}

export interface DetInput {
  A: number[];
  ell: number;
}

export function detInput(seed: number, ell: number): DetInput {
  const rng = new Rng(seed);
  return { A: rng.uniforms(ell * ell), ell, ...RUNS };
}

export interface OdeInput {
  x: number[];
  s: number;
}

export function odeInput(seed: number, n: number, s: number): OdeInput {
  const rng = new Rng(seed);
  return { x: rng.uniforms(n, 0.5, 1.5), s, ...RUNS };
}

export interface KmeansInput {
  points: number[][];
  centroids: number[][];
}

/** Uniform points; the centroids are the last k points, as in GradBench (no empty cluster). */
export function kmeansInput(seed: number, k: number, n: number, d: number): KmeansInput {
  const rng = new Rng(seed);
  const points = Array.from({ length: n }, () => rng.uniforms(d));
  return { points, centroids: points.slice(n - k).map((p) => p.slice()), ...RUNS };
}

// --- gmm -------------------------------------------------------------------------------------

export interface GmmInput {
  d: number;
  k: number;
  n: number;
  x: number[][];
  m: number;
  gamma: number;
  alpha: number[];
  mu: number[][];
  q: number[][];
  l: number[][];
}

/** As GradBench: normal x, alpha, q and l, uniform mu; m and gamma are parameters here. */
export function gmmInput(
  seed: number,
  d: number,
  k: number,
  n: number,
  m = 0,
  gamma = 1,
): GmmInput {
  const rng = new Rng(seed);
  const rows = (count: number, f: () => number[]) => Array.from({ length: count }, f);
  return {
    d,
    k,
    n,
    x: rows(n, () => rng.normals(d)),
    m,
    gamma,
    alpha: rng.normals(k),
    mu: rows(k, () => rng.uniforms(d)),
    q: rows(k, () => rng.normals(d)),
    l: rows(k, () => rng.normals((d * (d - 1)) / 2)),
    ...RUNS,
  };
}

// --- ba --------------------------------------------------------------------------------------

/** GradBench's compressed ba input: one camera, point, weight and feature, replicated. */
export interface BaInput {
  n: number;
  m: number;
  p: number;
  cam: number[];
  x: number[];
  w: number;
  feat: number[];
}

/** A full ba problem with distinct cameras, points, weights and features (not GradBench's
 *  format, which replicates one of each; the eval's core functions take this shape). */
export interface BaFullProblem {
  cams: number[][];
  points: number[][];
  weights: number[];
  obs: { camera: number; point: number }[];
  feats: number[][];
}

/** A camera [r1 r2 r3 C1 C2 C3 f u0 v0 k1 k2] some 10 units behind the origin along z, looking
 *  at it, so every generated point is well in front of it. */
function baCamera(rng: Rng, rotation = true): number[] {
  const rot = rotation ? rng.normals(3, 0, 0.2) : [0, 0, 0];
  return [
    ...rot,
    rng.normal(0, 0.5),
    rng.normal(0, 0.5),
    -10 + rng.normal(0, 0.5),
    rng.uniform(300, 500), // focal length
    rng.normal(0, 2), // principal point
    rng.normal(0, 2),
    rng.normal(0, 0.05), // radial distortion
    rng.normal(0, 0.01),
  ];
}

export function baInput(seed: number, n: number, m: number, p: number): BaInput {
  const rng = new Rng(seed);
  return {
    n,
    m,
    p,
    cam: baCamera(rng),
    x: rng.normals(3),
    w: rng.uniform(0.2, 0.9),
    feat: rng.normals(2, 0, 50),
    ...RUNS,
  };
}

/** n cameras (the first without rotation, to take the r = 0 branch), m points, p observations. */
export function baFullProblem(seed: number, n: number, m: number, p: number): BaFullProblem {
  const rng = new Rng(seed);
  const cams = Array.from({ length: n }, (_, i) => baCamera(rng, i !== 0));
  const points = Array.from({ length: m }, () => rng.normals(3));
  const obs = Array.from({ length: p }, (_, i) => ({
    camera: i < n ? i : rng.int(n),
    point: i < m ? i : rng.int(m),
  }));
  return {
    cams,
    points,
    weights: rng.uniforms(p, 0.2, 0.9),
    obs,
    feats: Array.from({ length: p }, () => rng.normals(2, 0, 50)),
  };
}

// --- ht --------------------------------------------------------------------------------------

export interface HtInput {
  theta: number[];
  data: {
    model: {
      bone_count: number;
      bone_names: string[];
      parents: number[];
      base_relatives: number[][][];
      inverse_base_absolutes: number[][][];
      base_positions: number[][];
      weights: number[][];
      triangles: number[][];
      is_mirrored: boolean;
    };
    correspondences: number[];
    points: number[][];
  };
  us: number[][];
}

/** The 22 bones of GradBench's hand model and their parents (a bone follows its parent). */
export const HAND_BONES = [
  "wrist",
  ...["thumb", "index", "middle", "ring", "pinky"].flatMap((f) => [1, 2, 3, 4].map((j) => f + j)),
  "forearm",
];
export const HAND_PARENTS = [
  -1, 0, 1, 2, 3, 0, 5, 6, 7, 0, 9, 10, 11, 0, 13, 14, 15, 0, 17, 18, 19, 0,
];

type Mat4 = number[][];

function mat4Mul(a: Mat4, b: Mat4): Mat4 {
  return a.map((row) => b[0].map((_, j) => row.reduce((s, v, t) => s + v * b[t][j], 0)));
}

/** A rigid transform: rotation by the angle-axis vector r, then translation t. */
function rigid(r: number[], t: number[]): Mat4 {
  const angle = Math.hypot(r[0], r[1], r[2]);
  const [x, y, z] = r.map((v) => v / angle);
  const c = Math.cos(angle);
  const s = Math.sin(angle);
  const C = 1 - c;
  return [
    [c + x * x * C, x * y * C - z * s, x * z * C + y * s, t[0]],
    [y * x * C + z * s, c + y * y * C, y * z * C - x * s, t[1]],
    [z * x * C - y * s, z * y * C + x * s, c + z * z * C, t[2]],
    [0, 0, 0, 1],
  ];
}

/** The inverse of a rigid transform [R t; 0 1]: [Rᵀ −Rᵀt; 0 1]. */
function rigidInverse(m: Mat4): Mat4 {
  const out: Mat4 = [[], [], [], [0, 0, 0, 1]];
  for (let i = 0; i < 3; i++) {
    for (let j = 0; j < 3; j++) out[i][j] = m[j][i];
    out[i][3] = -(m[0][i] * m[0][3] + m[1][i] * m[1][3] + m[2][i] * m[2][3]);
  }
  return out;
}

/**
 * A synthetic hand of GradBench's structure — 22 bones with GradBench's parents (toPoseParams
 * needs them all), random rigid base transforms and the matching inverse base absolutes — but
 * only `vertices` vertices, each skinned to two bones (every bone moves some vertex), `triangles`
 * random triangles, and `points` measured points near their correspondences. The simple variant
 * has `us = []`; the complicated one corresponds points with triangles, with barycentric
 * (u0, u1) inside them.
 */
export function htInput(
  seed: number,
  variant: "simple" | "complicated",
  options: { vertices?: number; triangles?: number; points?: number; mirrored?: boolean } = {},
): HtInput {
  const rng = new Rng(seed);
  const vertexCount = options.vertices ?? 24;
  const triangleCount = options.triangles ?? 10;
  const pointCount = options.points ?? 8;
  const bones = HAND_BONES.length;

  const baseRelatives = HAND_PARENTS.map((parent) =>
    rigid(rng.normals(3, 0, 0.4), parent === -1 ? [0, 0, 0] : rng.normals(3, 0, 0.03)),
  );
  const absolutes: Mat4[] = [];
  HAND_PARENTS.forEach((parent, i) =>
    absolutes.push(parent === -1 ? baseRelatives[i] : mat4Mul(absolutes[parent], baseRelatives[i])),
  );
  const inverseBaseAbsolutes = absolutes.map(rigidInverse);

  const basePositions: number[][] = [];
  const weights: number[][] = [];
  for (let v = 0; v < vertexCount; v++) {
    const bone = v % bones;
    const other = (bone + 1 + rng.int(bones - 1)) % bones;
    const a = absolutes[bone];
    const local = [...rng.normals(3, 0, 0.02), 1];
    basePositions.push(a.map((row) => row.reduce((s, x, t) => s + x * local[t], 0)));
    const row = new Array<number>(bones).fill(0);
    row[bone] = rng.uniform(0.4, 0.9);
    row[other] = 1 - row[bone];
    weights.push(row);
  }
  const triangles: number[][] = [];
  for (let t = 0; t < triangleCount; t++) {
    const a = rng.int(vertexCount);
    const b = (a + 1 + rng.int(vertexCount - 1)) % vertexCount;
    let c = rng.int(vertexCount);
    while (c === a || c === b) c = (c + 1) % vertexCount;
    triangles.push([a, b, c]);
  }
  const correspondences: number[] = [];
  const points: number[][] = [];
  const us: number[][] = [];
  for (let i = 0; i < pointCount; i++) {
    if (variant === "simple") {
      const v = rng.int(vertexCount);
      correspondences.push(v);
      points.push(basePositions[v].slice(0, 3).map((x) => x + rng.normal(0, 0.01)));
    } else {
      const t = rng.int(triangleCount);
      correspondences.push(t);
      const u = [rng.uniform(0.1, 0.45), rng.uniform(0.1, 0.45)];
      us.push(u);
      const [a, b, c] = triangles[t].map((v) => basePositions[v]);
      points.push(
        [0, 1, 2].map(
          (j) => u[0] * a[j] + u[1] * b[j] + (1 - u[0] - u[1]) * c[j] + rng.normal(0, 0.01),
        ),
      );
    }
  }
  return {
    theta: [...rng.normals(3, 0, 0.5), ...rng.normals(3, 0, 0.1), ...rng.normals(20, 0, 0.4)],
    data: {
      model: {
        bone_count: bones,
        bone_names: HAND_BONES,
        parents: HAND_PARENTS,
        base_relatives: baseRelatives,
        inverse_base_absolutes: inverseBaseAbsolutes,
        base_positions: basePositions,
        weights,
        triangles,
        is_mirrored: options.mirrored ?? false,
      },
      correspondences,
      points,
    },
    us,
    ...RUNS,
  };
}

// --- lstm ------------------------------------------------------------------------------------

export interface LstmInput {
  main_params: number[][];
  extra_params: number[][];
  state: number[][];
  sequence: number[][];
}

/** l layers, c characters of b bits (GradBench: b = 14); uniform parameters and state as in
 *  GradBench, random characters (never all zero bits). */
export function lstmInput(seed: number, l: number, c: number, b: number): LstmInput {
  const rng = new Rng(seed);
  const rows = (count: number, width: number) =>
    Array.from({ length: count }, () => rng.uniforms(width));
  const sequence = Array.from({ length: c }, () => {
    const bits = Array.from({ length: b }, () => (rng.uniform() < 0.5 ? 0 : 1));
    bits[rng.int(b)] = 1;
    return bits;
  });
  return {
    main_params: rows(2 * l, 4 * b),
    extra_params: rows(3, b),
    state: rows(2 * l, b),
    sequence,
    ...RUNS,
  };
}

// --- particle, saddle: fixed inputs ------------------------------------------------------------

export interface ParticleInput {
  w: number;
}

export function particleInput(): ParticleInput {
  return { w: 0, ...RUNS };
}

export interface SaddleInput {
  start: number[];
}

export function saddleInput(): SaddleInput {
  return { start: [1, 1], ...RUNS };
}
