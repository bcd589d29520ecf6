// Scratch memory for the hand-written gradients: what they tape, reused from call to call.

/** A Float64Array reused from call to call, grown (never shrunk) when a call needs more. */
export class Scratch {
  array = new Float64Array(1024);
  /** Float64 entries the last call used: its memory in bytes is 8 times this. */
  used = 0;

  reserve(entries: number): Float64Array {
    if (this.array.length < entries) this.array = new Float64Array(entries);
    this.used = entries;
    return this.array;
  }
}
