// The protocol's `output` from what a `run<Fn>` returns: typed arrays become plain arrays (in
// objects and arrays too), so `JSON.stringify` writes them as lists. This runs after the timed
// call: converting a large Float64Array costs more than some of the computations measured
// (Array.from of 5,000 numbers takes about twice as long as lse's primal).

export type Json = number | boolean | string | null | Json[] | { [key: string]: Json };

export function toJson(value: unknown): Json {
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    const typed = value as unknown as ArrayLike<number>;
    const out = new Array<number>(typed.length);
    for (let i = 0; i < typed.length; i++) out[i] = typed[i]!;
    return out;
  }
  if (Array.isArray(value)) return value.map(toJson);
  if (value !== null && typeof value === "object") {
    const out: { [key: string]: Json } = {};
    for (const [key, field] of Object.entries(value)) out[key] = toJson(field);
    return out;
  }
  return value as Json;
}
