// Bundle-adjustment-style reprojection error of a pinhole camera with Rodrigues rotation and radial distortion, using a Cauchy robust loss.

export type Vec3 = [number, number, number];

export interface CameraParams {
  rotation: Vec3; // axis-angle (Rodrigues vector)
  translation: Vec3;
  focal: number;
  k1: number;
  k2: number;
}

export interface Observation {
  point: number; // index into landmarks
  u: number;
  v: number;
}

const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const dot = (a: Vec3, b: Vec3) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];

export function rotate(rvec: Vec3, p: Vec3): Vec3 {
  const theta = Math.hypot(...rvec);
  if (theta < 1e-9) {
    const w = cross(rvec, p);
    return [p[0] + w[0], p[1] + w[1], p[2] + w[2]];
  }
  const k = rvec.map((c) => c / theta) as Vec3;
  const cos = Math.cos(theta);
  const sin = Math.sin(theta);
  const kxp = cross(k, p);
  const kdp = dot(k, p) * (1 - cos);
  return [0, 1, 2].map((i) => p[i] * cos + kxp[i] * sin + k[i] * kdp) as Vec3;
}

export class PinholeCamera {
  constructor(
    readonly params: CameraParams,
    readonly principal: { cx: number; cy: number } = { cx: 320, cy: 240 },
  ) {}

  project(world: Vec3): { u: number; v: number; depth: number } {
    const { rotation, translation, focal, k1, k2 } = this.params;
    const [X, Y, Z] = rotate(rotation, world).map((c, i) => c + translation[i]);
    const x = X / Z;
    const y = Y / Z;
    const r2 = x * x + y * y;
    const distortion = 1 + k1 * r2 + k2 * r2 * r2;
    return { u: focal * distortion * x + this.principal.cx, v: focal * distortion * y + this.principal.cy, depth: Z };
  }
}

export function objective(camera: CameraParams, landmarks: Vec3[], observations: Observation[], robustScale = 2.0): number {
  const cam = new PinholeCamera(camera);
  const c2 = robustScale * robustScale;
  return observations.reduce((total, { point, u, v }) => {
    const projected = cam.project(landmarks[point]);
    if (projected.depth <= 0) throw new Error(`landmark ${point} is behind the camera`);
    const r2 = (projected.u - u) ** 2 + (projected.v - v) ** 2;
    return total + 0.5 * c2 * Math.log1p(r2 / c2);
  }, 0);
}

export const landmarks: Vec3[] = Array.from({ length: 10 }, (_, i): Vec3 => [
  Math.cos(i * 1.3) * 1.5,
  Math.sin(i * 0.9) * 1.0,
  4 + 0.5 * Math.sin(i * 2.1),
]);

// observations synthesized from a reference camera, with a couple of perturbed (outlier-ish) pixels
const reference = new PinholeCamera({ rotation: [0.05, -0.1, 0.02], translation: [0.1, -0.05, 0.3], focal: 520, k1: -0.08, k2: 0.01 });
export const observations: Observation[] = landmarks.map((p, i) => {
  const { u, v } = reference.project(p);
  return { point: i, u: u + (i % 4 === 0 ? 6 : 0.3 * Math.sin(i)), v: v + 0.3 * Math.cos(i) };
});

export const args: Parameters<typeof objective> = [
  { rotation: [0.06, -0.08, 0.015], translation: [0.12, -0.03, 0.25], focal: 510, k1: -0.05, k2: 0 },
  landmarks,
  observations,
  2.0,
];
