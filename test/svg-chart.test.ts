import { test } from "node:test";
import assert from "node:assert/strict";
import { barChartSvg, chooseScale, stackSvg, type BarRow } from "../bench/svg-chart.js";

// bench/svg-chart.ts draws docs/benchmarks.svg: the SVG must be well-formed XML (a browser
// shows nothing at all otherwise), have one bar per row with its label and value, and an axis
// whose ticks make sense for the values.

interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  /** The element's own text (not its children's), entities decoded. */
  text: string;
}

const NAME = "[A-Za-z_][-A-Za-z0-9_:.]*";
const START_TAG = new RegExp(
  `^<(${NAME})((?:\\s+${NAME}\\s*=\\s*(?:"[^"<]*"|'[^'<]*'))*)\\s*(/?)>$`,
);
const ATTRIBUTE = new RegExp(`(${NAME})\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, "g");
const ENTITY = /&(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g;

function decode(text: string, where: string): string {
  assert.ok(!text.replace(ENTITY, "").includes("&"), `a bare & in ${where}: ${text}`);
  return text
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&amp;/g, "&");
}

/** A strict little XML checker: one root, balanced tags, quoted attributes, valid entities. */
function parseXml(xml: string): XmlElement[] {
  const elements: XmlElement[] = [];
  const open: XmlElement[] = [];
  let roots = 0;
  const token = /<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<[^<>]*>|[^<]+|</y;
  while (token.lastIndex < xml.length) {
    const at = token.lastIndex;
    const t = token.exec(xml)?.[0];
    assert.ok(t !== undefined && t !== "<", `unexpected < at ${at}: ${xml.slice(at, at + 40)}`);
    if (t.startsWith("<!--")) continue;
    if (t.startsWith("<?")) {
      assert.equal(at, 0, "an XML declaration only at the start");
      continue;
    }
    if (t.startsWith("</")) {
      const name = /^<\/([^\s>]+)\s*>$/.exec(t)?.[1];
      const top = open.pop();
      assert.equal(name, top?.name, `</${name}> closes <${top?.name}> at ${at}`);
      continue;
    }
    if (t.startsWith("<")) {
      const m = START_TAG.exec(t);
      assert.ok(m, `malformed tag at ${at}: ${t}`);
      const attrs: Record<string, string> = {};
      for (const [, key, double, single] of m[2]!.matchAll(ATTRIBUTE)) {
        assert.ok(!(key! in attrs), `attribute ${key} twice in ${t}`);
        attrs[key!] = decode(double ?? single ?? "", t);
      }
      assert.ok(open.length > 0 || roots === 0, `a second root element at ${at}`);
      if (open.length === 0) roots++;
      const element = { name: m[1]!, attrs, text: "" };
      elements.push(element);
      if (m[3] !== "/") open.push(element);
      continue;
    }
    if (open.length === 0) assert.match(t, /^\s*$/, `text outside the root element at ${at}`);
    else open.at(-1)!.text += decode(t, "text");
  }
  assert.deepEqual(
    open.map((e) => e.name),
    [],
    "elements left open",
  );
  assert.equal(roots, 1, "exactly one root element");
  return elements;
}

const ROWS: BarRow[] = [
  { group: "nabla ÷ primal", label: "forward (a) straight-line", value: 1.68, target: 2.5 },
  { group: "nabla ÷ primal", label: "gradient (e) matrix–vector", value: 8.54, target: 3 },
  { group: "nabla ÷ hand-written", label: "gradient (b) loop", value: 0.9, target: 1.3 },
  { group: "nabla ÷ hand-written", label: "Hessian (h) <Rosenbrock> & co", value: 1.72 },
  { group: "other", label: "(h) Hessian ÷ gradient", value: 130.86 },
  { group: "other", label: "tfjs ÷ nabla 'HVP'", value: 250 },
];

const chart = () =>
  barChartSvg(ROWS, { title: "Cost & speed", axisLabel: "time ratio", unit: "×", id: "t" });

test("the chart is well-formed XML: an <svg> root with a <title>, a <desc> and a background", () => {
  const svg = chart();
  const elements = parseXml(svg);
  const root = elements[0]!;
  assert.equal(root.name, "svg");
  assert.equal(root.attrs["xmlns"], "http://www.w3.org/2000/svg");
  assert.equal(root.attrs["role"], "img");
  const [width, height] = [Number(root.attrs["width"]), Number(root.attrs["height"])];
  assert.ok(width > 0 && height > 0);
  assert.equal(root.attrs["viewBox"], `0 0 ${width} ${height}`);
  assert.equal(elements[1]!.name, "title");
  assert.equal(elements[1]!.text, "Cost & speed");
  assert.equal(root.attrs["aria-labelledby"], "t-title t-desc");
  const desc = elements.find((e) => e.name === "desc")!;
  for (const r of ROWS) assert.ok(desc.text.includes(r.label), `the description names ${r.label}`);
  // An opaque background, so dark themes do not show dark text on a dark page.
  const background = elements.find((e) => e.name === "rect")!;
  assert.equal(background.attrs["fill"], "#ffffff");
  assert.equal(Number(background.attrs["width"]), width - 1);
});

test("one bar per row, each with its label and value, bars growing with the value", () => {
  const elements = parseXml(chart());
  const bars = elements.filter((e) => e.name === "rect" && e.attrs["class"] === "bar");
  assert.equal(bars.length, ROWS.length);
  const texts = elements.filter((e) => e.name === "text").map((e) => e.text);
  for (const r of ROWS) assert.ok(texts.includes(r.label), `a label "${r.label}"`);
  for (const group of new Set(ROWS.map((r) => r.group!))) assert.ok(texts.includes(group));
  const values = elements.filter((e) => e.attrs["class"] === "value").map((e) => e.text);
  assert.deepEqual(values, ["1.68×", "8.54×", "0.90×", "1.72×", "131×", "250×"]);
  // Log scale, bars from 1×: the right ends of the bars above 1 are in the order of the
  // values, and the bar below 1 ends at the baseline, where the others start.
  const right = bars.map((b) => Number(b.attrs["x"]) + Number(b.attrs["width"]));
  const left = bars.map((b) => Number(b.attrs["x"]));
  const above = ROWS.map((r, k) => [r.value, right[k]!] as const).filter(([v]) => v > 1);
  const sorted = [...above].sort((a, b) => a[0] - b[0]);
  for (let k = 1; k < sorted.length; k++) assert.ok(sorted[k]![1] > sorted[k - 1]![1]);
  assert.ok(Math.abs(right[2]! - left[0]!) < 0.2, "the 0.9× bar ends where the others start");
  // Rows with a target: a bar colour for met, another for missed, and a marker each.
  assert.notEqual(bars[0]!.attrs["fill"], bars[1]!.attrs["fill"]);
  assert.equal(bars[0]!.attrs["fill"], bars[2]!.attrs["fill"]);
  const markers = elements.filter((e) => e.name === "line" && e.attrs["stroke-width"] === "2");
  assert.equal(markers.length, 3 + 1, "three target markers and the legend's");
});

test("values 0.9 to 250 get a log scale with ticks at powers of ten", () => {
  const scale = chooseScale([0.9, 1.3, 2.5, 250]);
  assert.equal(scale.kind, "log");
  const [from, to] = scale.domain;
  assert.ok(from <= 0.9 && from >= 0.5, `domain starts at ${from}`);
  assert.ok(to >= 250 && to <= 500, `domain ends at ${to}`);
  assert.deepEqual(scale.ticks, [1, 10, 100]);
  assert.equal(scale.position(from), 0);
  assert.equal(scale.position(to), 1);
  assert.ok(Math.abs(scale.position(10) - (1 + Math.log10(2)) / 3) < 1e-12);
  // The 2s and 5s between are grid lines, all inside the domain.
  assert.ok(scale.minorTicks.includes(2) && scale.minorTicks.includes(50));
  for (const t of [...scale.ticks, ...scale.minorTicks]) assert.ok(t >= from && t <= to);

  // With room for more ticks, the 1-2-5 series is labelled.
  assert.deepEqual(
    chooseScale([0.9, 250], "auto", 12).ticks,
    [0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500],
  );

  // In the chart: tick labels from the axis, in order.
  const ticks = parseXml(chart())
    .filter((e) => e.attrs["class"] === "tick")
    .map((e) => e.text);
  assert.ok(ticks.length >= 3 && ticks.length <= 10, `ticks ${ticks.join(" ")}`);
  for (const t of ["1×", "10×", "100×"]) assert.ok(ticks.includes(t), `a tick ${t}`);
  const numbers = ticks.map((t) => Number(t.replace(/[×,]/g, "")));
  assert.deepEqual(
    numbers,
    [...numbers].sort((a, b) => a - b),
  );
});

test("values within a factor of 10 get a linear scale from 0 with round, even ticks", () => {
  const scale = chooseScale([0, 0.97, 1.68, 2.5, 3]);
  assert.equal(scale.kind, "linear");
  assert.equal(scale.domain[0], 0);
  assert.ok(scale.domain[1] >= 3 && scale.domain[1] <= 4);
  const steps = scale.ticks.slice(1).map((t, k) => t - scale.ticks[k]!);
  for (const s of steps) assert.ok(Math.abs(s - steps[0]!) < 1e-9, `even steps ${steps.join(" ")}`);
  assert.ok([0.5, 1].includes(steps[0]!), `a round step, got ${steps[0]}`);
  assert.ok(scale.ticks.length >= 3 && scale.ticks.length <= 8);
  assert.equal(scale.position(scale.domain[1] / 2), 0.5);
  // Steps of 2: unlabelled grid lines at the odd numbers between the ticks.
  const twos = chooseScale([0, 7], "linear", 5);
  assert.deepEqual(twos.ticks, [0, 2, 4, 6, 8]);
  assert.deepEqual(twos.minorTicks, [1, 3, 5, 7]);

  const svg = barChartSvg(
    [
      { label: "a", value: 1.5 },
      { label: "b", value: 3 },
    ],
    { title: "linear" },
  );
  const bars = parseXml(svg).filter((e) => e.attrs["class"] === "bar");
  const widths = bars.map((b) => Number(b.attrs["width"]));
  assert.ok(Math.abs(widths[1]! / widths[0]! - 2) < 0.01, "bars from 0, proportional to values");
});

test("the scale can be forced, and bad input is refused", () => {
  assert.equal(chooseScale([1, 2], "log").kind, "log");
  assert.equal(chooseScale([1, 1000], "linear").kind, "linear");
  assert.throws(() => chooseScale([0, 5], "log"), /positive/);
  assert.throws(() => barChartSvg([], { title: "none" }), /no rows/);
  assert.throws(() => barChartSvg([{ label: "x", value: NaN }], { title: "nan" }), /finite/);
});

test("stacked charts are one well-formed document, each chart in place", () => {
  const a = barChartSvg(ROWS.slice(0, 3), { title: "first", id: "a" });
  const b = barChartSvg(ROWS.slice(4), { title: "second", id: "b" });
  const elements = parseXml(stackSvg([a, b], { title: "both", gap: 10 }));
  const svgs = elements.filter((e) => e.name === "svg");
  assert.equal(svgs.length, 3);
  const [outer, first, second] = svgs as [XmlElement, XmlElement, XmlElement];
  assert.equal(
    Number(outer.attrs["height"]),
    Number(first.attrs["height"]) + 10 + Number(second.attrs["height"]),
  );
  assert.equal(Number(second.attrs["y"]), Number(first.attrs["height"]) + 10);
  assert.equal(elements.filter((e) => e.attrs["class"] === "bar").length, 5);
  const desc = elements.find((e) => e.name === "desc")!;
  assert.ok(
    desc.text.startsWith("both.") && desc.text.includes("first") && desc.text.includes("second"),
  );
});
