import { differential } from "nabla";

// (a) Straight-line code: about 50 arithmetic and Math operations of three inputs, no
// control flow. Measures the raw cost of the tangent expressions nabla emits.

export function straight(x: number, y: number, z: number): number {
  const a = x * y + z;
  const b = Math.sin(a) * Math.cos(x - z);
  const c = Math.exp(-0.5 * b * b) / (1 + y * y);
  const d = Math.sqrt(1 + a * a + c * c);
  const e = Math.log(d + z * z) - Math.tanh(x * c);
  const f = ((a - b) * (c + d)) / (e * e + 1);
  const g = Math.atan(f) + Math.pow(d, 1.5) * 0.25;
  const h = x * x * x - 3 * x * y + (y * z) / (1 + Math.abs(e));
  const k = Math.hypot(g, h) + Math.cosh(0.1 * f);
  return k * Math.sin(g - h) + e / d;
}

/** The directional derivative (JVP) of `straight`, tangents given for all three inputs. */
export const dStraight = differential(straight);
