import { test } from "node:test";
import assert from "node:assert/strict";
import { format } from "prettier";
import { figure, renderSvg, textWidth, type BarChart } from "../bench/chart.js";
import { table } from "../bench/markdown.js";
import { benchmarksSvg } from "../bench/report-chart.js";
import { STEPS } from "../bench/reverse.js";

// The benchmark reports' charts (bench/chart.ts: Vega-Lite specs rendered by Vega) and tables
// (bench/markdown.ts), on made-up numbers: no benchmark runs here.

const COST: BarChart = {
  title: "Cost",
  subtitle: "lower is better",
  axisLabel: "time ratio",
  unit: "×",
  rows: [
    { group: "÷ primal", label: "forward (a)", value: 1.31, target: 2.5 },
    {
      group: "÷ primal",
      label: "gradient (e)",
      value: 6.86,
      target: 3,
      note: "gradient (e) n=256",
    },
    { group: "÷ hand", label: "forward (a)", value: 1.01 },
  ],
};
const TFJS: BarChart = {
  title: "tfjs ÷ nabla",
  axisLabel: "time ratio",
  unit: "×",
  rows: [
    { label: "gradient (a)", value: 18949 },
    { label: "HVP (h)", value: 3.2 },
  ],
};

/** The charts of `spec` (its vconcat), their panels (one per group) and a panel's rows. */
interface Panel {
  title?: { text: string };
  data: { values: Record<string, unknown>[] };
  layer: { encoding: { x: { scale?: { type: string } } } }[];
}
const charts = (spec: unknown) => (spec as { vconcat: { vconcat: Panel[] }[] }).vconcat;

test("the chart spec: a panel per group in order, bars coloured against their targets", () => {
  const [cost, tfjs] = charts(figure([COST, TFJS], "the figure"));
  const panels = cost!.vconcat;
  assert.deepEqual(
    panels.map((p) => p.title?.text),
    ["÷ primal", "÷ hand"],
  );
  const [a, e] = panels[0]!.data.values;
  assert.equal(a!["status"], "within target");
  assert.equal(e!["status"], "over target");
  assert.equal(panels[1]!.data.values[0]!["status"], "no target");
  // The value is written after the target marker when the marker is further right.
  assert.equal(a!["textAt"], 2.5);
  assert.equal(e!["textAt"], 6.86);
  assert.equal(e!["description"], "gradient (e) n=256: 6.86× (target ≤ 3.00×: not met)");
  assert.equal(panels[0]!.layer[0]!.encoding.x.scale?.type, "linear");
  // Values spanning 10× or more: a log scale, with bars from 1 (parity).
  const tfjsPanel = tfjs!.vconcat[0]!;
  assert.equal(tfjsPanel.layer[0]!.encoding.x.scale?.type, "log");
  assert.equal(tfjsPanel.data.values[0]!["text"], "18,949×");
  assert.throws(() => figure([{ ...COST, rows: [{ label: "x", value: NaN }] }], ""), /non-finite/);
  assert.throws(() => figure([{ ...COST, rows: [] }], ""), /no rows/);
});

/** Checks that every tag is closed in order and every attribute quoted: well-formed XML. */
function assertWellFormed(svg: string): void {
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/y;
  for (let i = 0; i < svg.length;) {
    const lt = svg.indexOf("<", i);
    const text = svg.slice(i, lt === -1 ? svg.length : lt);
    assert.doesNotMatch(text, /&(?!(amp|lt|gt|quot|apos|#\d+|#x[\da-f]+);)/i, "a raw &");
    if (lt === -1) break;
    tag.lastIndex = lt;
    const m = tag.exec(svg);
    assert.ok(m, `a malformed tag at ${svg.slice(lt, lt + 60)}`);
    const [, close, name, , selfClosing] = m;
    if (close) assert.equal(stack.pop(), name, `</${name}> closes another element`);
    else if (!selfClosing) stack.push(name!);
    i = tag.lastIndex;
  }
  assert.deepEqual(stack, [], "unclosed elements");
}

test("the rendered SVG is well-formed, on a white background, and has every label", async () => {
  assert.throws(() => assertWellFormed("<svg><g></svg>"), /closes another/);
  assert.throws(() => assertWellFormed('<svg a="1"><text>a & b</text></svg>'), /raw &/);
  assert.throws(() => assertWellFormed("<svg a=1></svg>"), /malformed/);
  const svg = await renderSvg(figure([COST, TFJS], "the figure"));
  assert.match(svg, /^<svg [^>]*width="\d+" height="\d+" viewBox=[^>]*><title>the figure<\/title>/);
  assertWellFormed(svg);
  assert.match(svg, /<rect width="\d+" height="\d+" fill="white"\/>/);
  for (const text of ["Cost", "lower is better", "÷ primal", "÷ hand", "forward (a)", "6.86×"]) {
    assert.ok(svg.includes(`>${text}</text>`), text);
  }
  assert.ok(svg.includes(">18,949×</text>"));
  assert.ok(svg.includes(">time ratio (log scale)</text>"));
  assert.ok(svg.includes(">within target</text>") && svg.includes(">over target</text>"));
  assert.equal((svg.match(/aria-roledescription="bar"/g) ?? []).length, 5);
  assert.ok(svg.includes('aria-label="gradient (e) n=256: 6.86× (target ≤ 3.00×: not met)"'));
});

test("text is measured with Helvetica's metrics", () => {
  // H e l l o: 722 + 556 + 222 + 222 + 556 thousandths of an em.
  assert.ok(Math.abs(textWidth("Hello", 10) - 22.78) < 1e-9);
  assert.ok(textWidth("Hello", 10, true) > textWidth("Hello", 10));
  assert.ok(textWidth("iiii", 12) < textWidth("MMMM", 12) / 3);
  assert.equal(textWidth("→", 10), 6, "a character outside the metrics counts 0.6 em");
});

test("docs/benchmarks.svg: the report's ratios in two charts", async () => {
  const row = (benchmark: string, vsPrimal: number, vsHand: number) => ({
    benchmark,
    primal: 100,
    nabla: 100 * vsPrimal,
    hand: (100 * vsPrimal) / vsHand,
    fastest: { primal: 1, nabla: 1, hand: 1 },
  });
  const m = (median: number) => ({ median });
  const svg = await benchmarksSvg({
    when: "2026-01-01",
    forward: [row("(a) straight-line, ~50 ops", 1.31, 1.01)],
    forwardTargets: { primal: 2.5, hand: 1.3 },
    reverse: {
      rows: [row("(a) straight-line, ~100 ops", 2.12, 1.3), row("(b) loop, 10⁶ steps", 2, 1.5)],
      tfjsVersion: "4.22.0",
      tfjs: [
        { nsPerGradient: 212 * 18949 },
        { nsPerGradient: (200 / STEPS) * 17616 * 1000, steps: 1000 },
      ],
    } as never,
    structured: {
      rows: [row("(e) matrix–vector", 6.86, 1.6), row("(f) MLP", 3.26, 1.29)],
      tfjs: { nsPerGradient: 326 * 3.23 },
    } as never,
    higherOrder: {
      rosenbrock: {
        gradient: m(1),
        handGradient: m(1 / 1.27),
        hvp: m(1.37),
        handHvp: m(1),
        hessian: m(2.21),
        handHessian: m(1),
      },
      checkpoint: { checkpointed: m(2.3), plain: m(1) },
      tfjs: { nsPerGradient: 156, nsPerHvp: 328 * 1.37 },
    } as never,
    functionValues: { primal: m(1), gradient: m(2.41), gradientInlined: m(2.41 / 1.12) } as never,
  });
  assertWellFormed(svg);
  for (const text of [
    "Cost of nabla's derivatives",
    "nabla ÷ the primal function",
    "nabla ÷ hand-written derivative code",
    "higher order and checkpointing",
    "TensorFlow.js ÷ nabla",
    "gradient (b) loop, per step",
    "17,616×",
    "6.86×",
  ]) {
    assert.ok(svg.includes(`>${text}</text>`), text);
  }
});

test("Markdown tables are laid out as Prettier lays them out", async () => {
  const md = table(
    ["n", "benchmark", "ratio"],
    [
      ["1", "(a) straight-line", "1.31×"],
      ["10", "(b)", "–"],
    ],
    [true, false, true],
  );
  assert.equal(md.split("\n")[1], "| --: | ----------------- | ----: |");
  assert.equal(`${md}\n`, await format(`${md}\n`, { parser: "markdown" }));
});
