// The typed arrays nabla carries, by their constructors, named as TypeScript names them: the
// kinds an argument may be (fallback.ts) and that wasm memory holds in f64 cells (wasm.ts).

export const TYPED_ARRAYS = {
  Float64Array,
  Float32Array,
  Int32Array,
  Uint32Array,
  Int16Array,
  Uint16Array,
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
};

export type TypedArray = InstanceType<(typeof TYPED_ARRAYS)[keyof typeof TYPED_ARRAYS]>;
