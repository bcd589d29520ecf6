// Why a function stays JavaScript: thrown by the WAT emitter at the first op or type it does
// not cover, so the check that a function qualifies and its emission can never disagree.

export class NotForWasm extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}
