// Pullbacks run more than once. A backward sweep puts back the shadows its forward sweep's
// stores replaced (`body.vel = { … }` stores a new shadow where another was: see the
// compiler's differentiate/restore.ts), so after one run the shadows are as they were before
// the forward sweep, not after it. A pullback run again would then read adjoints out of the
// wrong shadows: zeros, or a crash on a slot the forward sweep had added. So while a pullback
// runs, each such put-back is journaled, and the next run of the same pullback first redoes
// them, last undone first.

/** What one pullback's last run put back: (container, key, value the run found) triples. */
export interface StoreJournal {
  undone: unknown[];
}

const EMPTY: unknown[] = [];

/** Journaling state shared by all generated code. */
const journal = {
  /** Entries of the pullbacks running now, innermost last. */
  entries: [] as unknown[],
  /** How many pullbacks are running (a gradient alone journals nothing). */
  depth: 0,
};

/**
 * A pullback's journal, empty before its first run.
 *
 * @internal
 */
export function storeJournal(): StoreJournal {
  return { undone: EMPTY };
}

/**
 * Before a pullback's backward sweep: redoes what its last run put back; returns the mark
 * `endReplay` takes.
 *
 * @internal
 */
export function beginReplay(own: StoreJournal): number {
  const u = own.undone;
  for (let i = u.length - 3; i >= 0; i -= 3) setSlot(u[i], u[i + 1], u[i + 2]);
  journal.depth++;
  return journal.entries.length;
}

/**
 * After a pullback's backward sweep (also when it threw): keeps what it put back.
 *
 * @internal
 */
export function endReplay(own: StoreJournal, mark: number): void {
  journal.depth--;
  own.undone = journal.entries.length > mark ? journal.entries.splice(mark) : EMPTY;
}

/**
 * `container[key] = value` where a backward sweep puts a replaced shadow back, journaled
 * while a pullback runs.
 *
 * @internal
 */
export function undoStore(container: unknown, key: unknown, value: unknown): void {
  if (journal.depth > 0) journal.entries.push(container, key, getSlot(container, key));
  setSlot(container, key, value);
}

function getSlot(container: unknown, key: unknown): unknown {
  if (container instanceof Map) return container.get(key);
  return (container as Record<string | number, unknown>)[key as string | number];
}

function setSlot(container: unknown, key: unknown, value: unknown): void {
  if (container instanceof Map) container.set(key, value);
  else (container as Record<string | number, unknown>)[key as string | number] = value;
}
