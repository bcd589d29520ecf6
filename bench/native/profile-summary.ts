// Summarizes a V8 CPU profile (node --cpu-prof): the share of samples per function (self time)
// and, for the top functions, per source line, from the profile's own positionTicks. Used for
// docs/native-gap.md with profile.ts.
//
//   node dist/bench/native/profile-summary.js FILE.cpuprofile…

import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  positionTicks?: { line: number; ticks: number }[];
}

// node --cpu-prof writes one profile per thread (nabla's module hooks run in their own): each
// file is summarized on its own.
const TOP = 8;
const files = process.argv.slice(2);
if (files.length === 0) throw new Error("usage: profile-summary FILE.cpuprofile…");
for (const file of files) summarize(file);

function summarize(file: string): void {
  const profile = JSON.parse(readFileSync(file, "utf8")) as { nodes: Node[] };
  const total = profile.nodes.reduce((s, n) => s + (n.hitCount ?? 0), 0);
  const byFunction = new Map<string, { ticks: number; lines: Map<number, number> }>();
  for (const node of profile.nodes) {
    const f = node.callFrame;
    const name = `${f.functionName || "(anonymous)"} ${f.url.split("/").slice(-2).join("/")}`;
    const entry = byFunction.get(name) ?? { ticks: 0, lines: new Map<number, number>() };
    entry.ticks += node.hitCount ?? 0;
    for (const t of node.positionTicks ?? []) {
      entry.lines.set(t.line, (entry.lines.get(t.line) ?? 0) + t.ticks);
    }
    byFunction.set(name, entry);
  }
  const pct = (t: number) => `${((100 * t) / total).toFixed(1).padStart(5)}%`;
  console.log(`${file}: ${total} samples`);
  const top = [...byFunction].sort((a, b) => b[1].ticks - a[1].ticks).slice(0, TOP);
  for (const [name, { ticks, lines }] of top) {
    console.log(`${pct(ticks)}  ${name}`);
    const sorted = [...lines].sort((a, b) => b[1] - a[1]).slice(0, 4);
    for (const [line, t] of sorted) console.log(`          ${pct(t)}  line ${line}`);
  }
}
