// Copies and value channels: JSON deep copy, Map values, Object.assign, Object.fromEntries,
// numeric enums as factors, typed array set.
import { gradient, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

enum Scale {
  Half = 0.5,
  Double = 2,
}
interface Params {
  a: number;
  b: number;
  nested: { c: number };
}

function jsonCopy(p: Params): number {
  const q: Params = { ...p, nested: { ...p.nested } };
  q.a *= 2;
  return p.a * q.a + q.nested.c * p.b;
}
function mapValues(xs: number[]): number {
  const m = new Map<string, number>();
  xs.forEach((x, i) => m.set(`k${i}`, x * x));
  const vals = [...m.values()];
  const arr = Array.from(m.values());
  return vals.reduce((s, v) => s + v, 0) + arr[0] * Scale.Double + Scale.Half * (m.get("k1") ?? 0);
}
function assignCopy(p: Params): number {
  const q = Object.assign({}, p, { b: p.b * 3 });
  const r = Object.fromEntries(Object.entries({ a: p.a, b: p.b }).map(([k, v]) => [k, v * 2]));
  return q.a * q.b + r.a * r.b;
}
function typedSet(xs: Float64Array): number {
  const buf = new Float64Array(xs.length + 2);
  buf.set(xs, 1);
  buf[0] = buf[1];
  return buf.reduce((s, v, i) => s + v * v * (i + 1), 0);
}

const p: Params = { a: 1.2, b: -0.7, nested: { c: 0.4 } };
const fp = (v: number[]) => ({ a: v[0], b: v[1], nested: { c: v[2] } });
const flatP = (g: Params) => [g.a, g.b, g.nested.c];
function tryRun(label: string, fn: () => void): void {
  try {
    fn();
  } catch (e) {
    console.log(`CRASH ${label}: ${(e as Error).message}`);
  }
}
tryRun("json", () => {
  const g = gradient(jsonCopy)(p);
  compare(
    "json vs fd",
    flatP(g),
    fdGrad((v) => jsonCopy(fp(v)), [1.2, -0.7, 0.4]),
  );
});
tryRun("mapValues", () => {
  const xs = [0.5, 1.5, -2];
  const g = gradient(mapValues)(xs);
  compare("mapValues vs fd", g, fdGrad(mapValues, xs));
  compare(
    "mapValues fwd",
    differential(mapValues)(xs)([1, 1, 1]),
    g.reduce((a, b) => a + b),
  );
});
tryRun("assign", () => {
  const g = gradient(assignCopy)(p);
  compare(
    "assign vs fd",
    flatP(g),
    fdGrad((v) => assignCopy(fp(v)), [1.2, -0.7, 0.4]),
  );
});
tryRun("typedSet", () => {
  const xs = Float64Array.of(0.3, -1, 2);
  const g = gradient(typedSet)(xs);
  compare(
    "typedSet vs fd",
    g,
    fdGrad((v) => typedSet(Float64Array.from(v)), [0.3, -1, 2]),
  );
});
summary("p35b");
