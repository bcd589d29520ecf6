// Strings cross into WebAssembly as i32 ids (the wasm backend's kinds.ts): the code only tests
// them for equality, so equal strings need equal ids and nothing else. The strings the code
// names have ids 1…n (WasmEntrySpec.strings); any other string a call copies in gets the next
// free id, for that call only; 0 is no string (undefined).

export class StringIds {
  private readonly named: Map<string, number>;
  /** The other strings of the current call, id `texts.length + 1 + k` for the k-th. */
  private others: string[] = [];
  private otherIds: Map<string, number> | undefined;

  constructor(private readonly texts: readonly string[]) {
    this.named = new Map(texts.map((text, k) => [text, k + 1]));
  }

  /** Before a call: the last call's other strings are forgotten. */
  startCall(): void {
    if (this.others.length === 0) return;
    this.others = [];
    this.otherIds = undefined;
  }

  idOf(text: string): number {
    const named = this.named.get(text);
    if (named !== undefined) return named;
    const ids = (this.otherIds ??= new Map());
    let id = ids.get(text);
    if (id === undefined) {
      id = this.texts.length + 1 + this.others.push(text) - 1;
      ids.set(text, id);
    }
    return id;
  }

  /** The string of id `id` (not 0). */
  textOf(id: number): string {
    return id <= this.texts.length ? this.texts[id - 1]! : this.others[id - this.texts.length - 1]!;
  }
}
