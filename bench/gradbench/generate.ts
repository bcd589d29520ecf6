// Generated GradBench inputs, for when the reference workloads (/work/shared/gradbench or
// $GRADBENCH_DATA) are not there: the same eval inputs with the same sizes as those files, filled
// with seeded pseudo-random numbers (uniform on [0, 1) where GradBench draws them so; normal
// for gmm). Their timings are comparable with those on the real files, but there is no
// reference output to check against; ht's hand model is a random skeleton rather than a hand.

/** A seeded generator of uniform numbers on [0, 1) (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rng = () => number;

const vector = (rng: Rng, n: number): number[] => Array.from({ length: n }, rng);
const matrix = (rng: Rng, rows: number, cols: number): number[][] =>
  Array.from({ length: rows }, () => vector(rng, cols));

/** Standard normal numbers (Box–Muller). */
function normal(rng: Rng): Rng {
  return () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
}

export interface GeneratedWorkload {
  name: string;
  input: () => unknown;
}

/** A workload's name and how to fill its input, given a generator of its own. */
interface Sized {
  name: string;
  input: (rng: Rng) => unknown;
}

function hello(): Sized[] {
  return [1, 2, 4, 8, 64, 128, 16384].map((x) => ({ name: `x=${x}`, input: () => x }));
}

function llsq(): Sized[] {
  return [16, 32, 64, 128, 256].map((n) => ({
    name: `n=${n},m=128`,
    input: (rng) => ({ x: vector(rng, 128), n }),
  }));
}

function lse(): Sized[] {
  return [2500, 5000, 10000, 20000, 40000].map((n) => ({
    name: `n=${n}`,
    input: (rng) => ({ x: vector(rng, n) }),
  }));
}

function det(): Sized[] {
  return [5, 6, 7, 8, 9].map((ell) => ({
    name: String(ell),
    input: (rng) => ({ A: vector(rng, ell * ell), ell }),
  }));
}

function ode(): Sized[] {
  const sizes: [number, number][] = [
    [1000, 1],
    [1000, 10],
    [10000, 1],
    [1000, 100],
    [10000, 10],
  ];
  return sizes.map(([n, s]) => ({
    name: `n=${n},s=${s}`,
    input: (rng) => ({ x: vector(rng, n), s }),
  }));
}

function kmeans(): Sized[] {
  const sizes: [number, number, number][] = [
    [10, 1000, 8],
    [10, 1000, 16],
    [10, 10000, 8],
    [100, 1000, 8],
  ];
  return sizes.map(([k, n, d]) => ({
    name: `k=${k},n=${n},d=${d}`,
    input: (rng) => {
      const points = matrix(rng, n, d);
      return { points, centroids: points.slice(n - k).map((p) => p.slice()) };
    },
  }));
}

function gmm(): Sized[] {
  const sizes: [number, number][] = [
    [2, 5],
    [2, 10],
    [2, 25],
    [10, 5],
    [10, 10],
    [10, 25],
    [20, 5],
    [20, 10],
    [20, 25],
    [64, 10],
  ];
  const n = 1000;
  return sizes.map(([d, k]) => ({
    name: `${d}_${k}_${n}`,
    input: (rng) => {
      const z = normal(rng);
      return {
        d,
        k,
        n,
        x: matrix(z, n, d),
        m: 0,
        gamma: 1,
        alpha: vector(z, k),
        mu: matrix(rng, k, d),
        q: matrix(z, k, d),
        l: matrix(z, k, (d * (d - 1)) / 2),
      };
    },
  }));
}

function ba(): Sized[] {
  // One camera, point, weight and feature, replicated by the eval as GradBench's are (these
  // are ADBench's first camera and point).
  const base = {
    cam: [
      -0.758453, -1.109613, -0.845551, 34.556073, 39.676747, 53.881673, 419.194514, 5.864426,
      -8.51887, 0.087812, 0.002739,
    ],
    x: [7.203245, 0.001144, 3.023326],
    w: 0.417022,
    feat: [271.760969, 834.209256],
  };
  const sizes: [string, number, number, number][] = [
    ["ba1", 49, 7776, 31843],
    ["ba2", 21, 11315, 36455],
    ["ba3", 161, 48126, 182072],
    ["ba4", 372, 47423, 204472],
  ];
  return sizes.map(([name, n, m, p]) => ({
    name: `${name}_n${n}_m${m}_p${p}`,
    input: () => ({ n, m, p, ...base }),
  }));
}

/** A random skeleton of 22 bones in 5 chains of 4 off a root and a wrist, skinned to V vertices. */
function handModel(rng: Rng) {
  const bones = 22;
  const vertices = 544;
  const triangles = 1084;
  const parents = [-1, 0];
  for (let finger = 0; finger < 5; finger++) {
    for (let j = 0; j < 4; j++) parents.push(j === 0 ? 1 : parents.length - 1);
  }
  const rigid = () => {
    // A rotation about z by a small angle and a short translation, as a 4×4 row-major matrix.
    const a = (rng() - 0.5) * 0.6;
    return [
      [Math.cos(a), -Math.sin(a), 0, rng() * 0.1],
      [Math.sin(a), Math.cos(a), 0, 0.2 + rng() * 0.1],
      [0, 0, 1, rng() * 0.05],
      [0, 0, 0, 1],
    ];
  };
  const weights = Array.from({ length: vertices }, () => {
    const row = new Array<number>(bones).fill(0);
    const a = Math.floor(rng() * bones);
    const b = parents[a]! >= 0 ? parents[a]! : a;
    const t = rng();
    row[a] += t;
    row[b] += 1 - t;
    return row;
  });
  return {
    bone_count: bones,
    bone_names: Array.from({ length: bones }, (_, i) => `bone${i}`),
    parents,
    base_relatives: Array.from({ length: bones }, rigid),
    inverse_base_absolutes: Array.from({ length: bones }, rigid),
    base_positions: Array.from({ length: vertices }, () => [...vector(rng, 3), 1]),
    weights,
    triangles: Array.from({ length: triangles }, () =>
      [0, 1, 2].map(() => Math.floor(rng() * vertices)),
    ),
    is_mirrored: false,
  };
}

function ht(): Sized[] {
  const out: Sized[] = [];
  for (const variant of ["complicated", "simple"]) {
    for (const [hand, c] of [
      [1, 100],
      [2, 192],
      [3, 200],
    ] as const) {
      out.push({
        name: `${variant}_small_hand${hand}_t26_c${c}`,
        input: (rng) => {
          const model = handModel(rng);
          const limit = variant === "simple" ? model.base_positions.length : model.triangles.length;
          return {
            theta: vector(rng, 26).map((v) => (v - 0.5) * 2),
            data: {
              model,
              correspondences: Array.from({ length: c }, () => Math.floor(rng() * limit)),
              points: matrix(rng, c, 3),
            },
            us: variant === "simple" ? [] : matrix(rng, c, 2).map((u) => u.map((v) => v / 2)),
          };
        },
      });
    }
  }
  return out;
}

function lstm(): Sized[] {
  const b = 14;
  const sizes: [number, number][] = [
    [2, 1024],
    [4, 1024],
    [6, 1024],
    [2, 4096],
  ];
  return sizes.map(([l, c]) => ({
    name: `l=${l},c=${c}`,
    input: (rng) => ({
      main_params: matrix(rng, 2 * l, 4 * b),
      extra_params: matrix(rng, 3, b),
      state: matrix(rng, 2 * l, b),
      sequence: matrix(rng, c, b).map((row) => row.map((v) => (v < 0.5 ? 0 : 1))),
    }),
  }));
}

const GENERATORS: { [evalName: string]: () => Sized[] } = {
  hello,
  llsq,
  lse,
  det,
  ode,
  kmeans,
  gmm,
  ba,
  ht,
  lstm,
  particle: () => [{ name: "w=0", input: () => ({ w: 0 }) }],
  saddle: () => [{ name: "w=0", input: () => ({ start: [1, 1] }) }],
};

/**
 * The generated workloads of an eval, smallest first, as in the data folder. Each has its own
 * seed, so an input does not depend on which other workloads were generated before it.
 */
export function generatedWorkloads(evalName: string, seed = 31337): GeneratedWorkload[] {
  const generator = GENERATORS[evalName];
  if (generator === undefined) throw new Error(`no generator for eval '${evalName}'`);
  return generator().map((w, i) => ({
    name: w.name,
    input: () => w.input(random(seed + 7919 * i)),
  }));
}
