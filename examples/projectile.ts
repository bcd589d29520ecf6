// How far does a ball fly with air drag, and at which launch angle does it fly farthest?
// The flight is simulated step by step; nabla differentiates the whole simulation with
// respect to the angle, and a secant search on that derivative finds the best angle.
import { derivative, valueWithDerivative } from "nabla";

const GRAVITY = 9.81; // m/s²
const DRAG = 0.02; // quadratic drag coefficient per unit mass, 1/m
const DT = 0.001; // s

/** Horizontal distance (m) of a ball launched at `angle` (radians) and `speed` (m/s). */
export function range(angle: number, speed: number): number {
  let x = 0;
  let y = 0;
  let vx = speed * Math.cos(angle);
  let vy = speed * Math.sin(angle);
  let previousX = 0;
  let previousY = 0;
  while (true) {
    previousX = x;
    previousY = y;
    const v = Math.hypot(vx, vy);
    vx -= DRAG * v * vx * DT;
    vy -= (GRAVITY + DRAG * v * vy) * DT;
    x += vx * DT;
    y += vy * DT;
    if (y < 0) break;
  }
  // Interpolate to the landing point, so the range varies smoothly with the angle.
  return previousX + (x - previousX) * (previousY / (previousY - y));
}

const speed = Number(process.argv[2] ?? 30);
const degrees = (radians: number) => (radians * 180) / Math.PI;

const rangeWithSlope = valueWithDerivative((angle: number) => range(angle, speed));
console.log(`launch speed ${speed} m/s`);
for (const d of [15, 30, 45, 60]) {
  const { value, derivative } = rangeWithSlope((d * Math.PI) / 180);
  console.log(
    `  ${d}°: range ${value.toFixed(2)} m, d(range)/d(angle) ${derivative.toFixed(3)} m/rad`,
  );
}

// The best angle is where the derivative vanishes: secant iterations on it.
const slope = derivative((angle: number) => range(angle, speed));
let a = 0.5;
let b = 0.9;
for (let i = 0; i < 20 && Math.abs(b - a) > 1e-10; i++) {
  const next = b - (slope(b) * (b - a)) / (slope(b) - slope(a));
  a = b;
  b = next;
}
console.log(
  `best angle ${degrees(b).toFixed(2)}° (45° without drag), range ${range(b, speed).toFixed(2)} m`,
);
