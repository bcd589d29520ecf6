// Sorting objects by a differentiable key, top-k selection, findIndex, some/every.
import { gradient, differential } from "nabla";
import { compare, fdGrad, summary } from "./check.ts";

interface Candidate {
  id: number;
  score: number;
  cost: number;
}

function topKValue(scores: number[], costs: number[], k = 3): number {
  const candidates: Candidate[] = scores.map((score, id) => ({ id, score, cost: costs[id] }));
  candidates.sort((a, b) => b.score - a.score || a.id - b.id);
  const chosen = candidates.slice(0, k);
  if (chosen.some((c) => c.cost > 5)) return -1;
  const cheapIdx = chosen.findIndex((c) => c.cost < 1);
  const bonus = cheapIdx >= 0 ? chosen[cheapIdx].score * 0.5 : 0;
  const allPositive = chosen.every((c) => c.score > 0);
  const total = chosen.reduce((s, c) => s + c.score * Math.exp(-c.cost), 0);
  return (allPositive ? total : total / 2) + bonus + (chosen.at(-1)?.score ?? 0);
}

const s = [0.3, 1.7, -0.2, 2.2, 0.9, 1.1];
const c = [0.5, 2, 1, 0.7, 3, 1.5];
const [gs, gc] = gradient(topKValue)(s, c);
compare(
  "gs vs fd",
  gs,
  fdGrad((x) => topKValue(x, c), s),
);
compare(
  "gc vs fd",
  gc,
  fdGrad((x) => topKValue(s, x), c),
);
compare(
  "fwd vs rev",
  differential(topKValue)(s, c)([1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 0]),
  gs.reduce((a, b) => a + b),
);
const s2 = [-0.3, 1.7, -0.2, 2.2, 0.9, -1.1];
compare(
  "gs2 vs fd",
  gradient(topKValue)(s2, c)[0],
  fdGrad((x) => topKValue(x, c), s2),
);
compare("wasm", gradient(topKValue, { backend: "wasm" })(s, c), [gs, gc]);
summary("p24-sort-objects");
