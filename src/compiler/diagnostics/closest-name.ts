// "Did you mean …?": the known name closest to a misspelled one, for help lines.

/** Edits (insert, delete, replace one character) turning `a` into `b`, ignoring case. */
function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const current = [i];
    for (let j = 1; j <= y.length; j++) {
      const replace = previous[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1);
      current.push(Math.min(replace, previous[j]! + 1, current[j - 1]! + 1));
    }
    previous = current;
  }
  return previous[y.length]!;
}

/** The name of `known` closest to `name`, if close enough to be a slip (a third of its length). */
export function closestName(name: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.floor(name.length / 3)) + 1;
  for (const candidate of known) {
    const d = editDistance(name, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}
