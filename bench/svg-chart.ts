// A horizontal bar chart as a standalone SVG string, without dependencies: rows of numbers
// (typically ratios: derivative ÷ primal, nabla ÷ another tool) in labelled groups, on a log or
// linear axis, with optional targets. Made for the benchmark reports: `npm run bench` writes
// docs/benchmarks.svg with it.
//
// The SVG has its own white background and dark text, so it reads the same in GitHub's light
// and dark themes (an <img> does not inherit the page's colours), a <title> and a <desc> that
// lists every value for screen readers, and a tooltip per bar. Text widths are estimated
// from the characters (there is no font engine here), generously, for a sans-serif font.

export interface BarRow {
  /** Rows with the same group are drawn together under its heading, in order of appearance. */
  group?: string;
  label: string;
  value: number;
  /** An upper bound: drawn as a marker; the bar is coloured as a miss when `value > target`. */
  target?: number;
  /** A longer text for the bar's tooltip and the description (for example the full name). */
  note?: string;
}

export type ScaleKind = "log" | "linear";

export interface BarChartOptions {
  title: string;
  /** A line under the title. */
  subtitle?: string;
  /** The text for screen readers; by default the title, then every row with its value. */
  description?: string;
  /** The axis title, e.g. "time ÷ primal"; " (log scale)" is appended on a log scale. */
  axisLabel?: string;
  /** "auto" (the default): log if all values are positive and span 10× or more. */
  scale?: ScaleKind | "auto";
  /** Where bars start: by default 1 on a log scale (a ratio of 1 is parity), 0 on a linear one. */
  baseline?: number;
  /** Appended to the numbers on the axis and the bars, e.g. "×". */
  unit?: string;
  /** The value printed at a bar's end (without the unit). */
  format?: (value: number) => string;
  /** Width in pixels (the viewBox; the height follows from the rows). Default 760. */
  width?: number;
  /** Prefix of the ids of <title> and <desc>, unique if several charts share a page. */
  id?: string;
}

/** An axis: where values go (0 at the left end of the plot, 1 at the right end) and its ticks. */
export interface Scale {
  kind: ScaleKind;
  domain: [number, number];
  /** Labelled ticks, ascending, within the domain. */
  ticks: number[];
  /** Unlabelled grid lines: on a log scale the 2s and 5s between labelled powers of ten. */
  minorTicks: number[];
  position(value: number): number;
}

// ---- scales ----

/** Removes the float noise of products like 3 × 0.1. */
const clean = (x: number) => Number(x.toPrecision(12));

/** The 1-2-5 grid: …, 0.5, 1, 2, 5, 10, 20, … */
function grid125(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)) - 1; e <= Math.ceil(Math.log10(hi)) + 1; e++) {
    for (const m of [1, 2, 5]) {
      const v = clean(m * 10 ** e);
      if (v >= lo * (1 - 1e-12) && v <= hi * (1 + 1e-12)) out.push(v);
    }
  }
  return out;
}

/** The largest 1-2-5 value ≤ x, and the smallest ≥ x. */
function snap125(x: number): [number, number] {
  const g = grid125(x / 10, x * 10);
  return [g.filter((v) => v <= x).at(-1)!, g.find((v) => v >= x)!];
}

function logScale(lo: number, hi: number, maxTicks: number): Scale {
  let [from] = snap125(lo);
  let [, to] = snap125(hi);
  if (from === to) [from, to] = [snap125(from * 0.99)[0], snap125(to * 1.01)[1]];
  const all = grid125(from, to);
  let ticks = all;
  let minorTicks: number[] = [];
  if (all.length > maxTicks) {
    const decades = all.filter((v) => v === clean(10 ** Math.round(Math.log10(v))));
    const every = Math.ceil(decades.length / maxTicks);
    ticks = decades.filter((_, i) => i % every === 0);
    // Fewer than two powers of ten in the domain: label its ends too.
    if (ticks.length < 2) ticks = [...new Set([from, ...ticks, to])];
    // The 2s and 5s as grid lines only while they are not too dense.
    minorTicks = all.length <= 3 * maxTicks ? all.filter((v) => !ticks.includes(v)) : [];
  }
  const [a, b] = [Math.log10(from), Math.log10(to)];
  return {
    kind: "log",
    domain: [from, to],
    ticks,
    minorTicks,
    position: (v) => (Math.log10(v) - a) / (b - a),
  };
}

/** 1, 2, 2.5 or 5 × 10ⁿ: the smallest such step ≥ `raw`. */
function niceStep(raw: number): number {
  const e = Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) {
    const step = clean(m * 10 ** e);
    if (step >= raw * (1 - 1e-12)) return step;
  }
  return clean(10 ** (e + 1));
}

function linearScale(lo: number, hi: number, maxTicks: number): Scale {
  if (lo === hi) [lo, hi] = lo === 0 ? [0, 1] : [Math.min(0, lo), Math.max(0, hi)];
  let step = niceStep((hi - lo) / Math.max(1, maxTicks - 1));
  let from = clean(Math.floor(lo / step + 1e-9) * step);
  let to = clean(Math.ceil(hi / step - 1e-9) * step);
  // Rounding both ends outwards can add a tick too many.
  while (Math.round((to - from) / step) + 1 > maxTicks) {
    step = niceStep(step * 1.01);
    from = clean(Math.floor(lo / step + 1e-9) * step);
    to = clean(Math.ceil(hi / step - 1e-9) * step);
  }
  const ticks: number[] = [];
  for (let i = 0; i <= Math.round((to - from) / step); i++) ticks.push(clean(from + i * step));
  // Grid lines halfway between ticks a step of 1 or 2 × 10ⁿ apart (then at round values).
  const mantissa = clean(step / 10 ** Math.floor(Math.log10(step)));
  const minorTicks =
    mantissa === 1 || mantissa === 2 ? ticks.slice(1).map((t) => clean(t - step / 2)) : [];
  return {
    kind: "linear",
    domain: [from, to],
    ticks,
    minorTicks,
    position: (v) => (v - from) / (to - from),
  };
}

/**
 * The axis for `values` (bar ends, targets and the baseline): log when asked, or for "auto"
 * when all values are positive and the largest is 10× the smallest or more; at most
 * `maxTicks` labelled ticks, the domain rounded outwards to ticks (to the 1-2-5 grid on a
 * log scale).
 */
export function chooseScale(
  values: readonly number[],
  kind: ScaleKind | "auto" = "auto",
  maxTicks = 8,
): Scale {
  if (values.length === 0) throw new Error("chooseScale: no values");
  if (values.some((v) => !Number.isFinite(v))) {
    throw new Error(`chooseScale: values must be finite, got ${values.join(", ")}`);
  }
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  if (kind === "log" && lo <= 0) throw new Error(`a log scale needs positive values, got ${lo}`);
  const log = (kind === "auto" ? autoScaleKind(values) : kind) === "log";
  return log ? logScale(lo, hi, Math.max(2, maxTicks)) : linearScale(lo, hi, Math.max(2, maxTicks));
}

/** Log if all values are positive and the largest is 10× the smallest or more, else linear. */
export function autoScaleKind(values: readonly number[]): ScaleKind {
  const lo = Math.min(...values);
  return lo > 0 && Math.max(...values) / lo >= 10 ? "log" : "linear";
}

// ---- text ----

/** A number for an axis: up to 6 significant digits, thousands separated from 1,000 on. */
export function formatTick(v: number): string {
  if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString("en-US");
  return String(clean(Number(v.toPrecision(6))));
}

/** A value at a bar's end: 2 decimals below 10, 1 below 100, then whole numbers. */
export function formatValue(v: number): string {
  const a = Math.abs(v);
  if (a >= 100) return Math.round(v).toLocaleString("en-US");
  return v.toFixed(a >= 10 ? 1 : 2);
}

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/** An estimate (on the wide side) of the width of `text` in a sans-serif font, in pixels. */
export function textWidth(text: string, fontSize: number): number {
  let em = 0;
  for (const c of text) {
    if (/[il.,:;'|!()[\]{} ·]/.test(c)) em += 0.3;
    else if (/[mwMW@%—]/.test(c)) em += 0.9;
    else if (/[A-Z]/.test(c)) em += 0.68;
    else em += 0.57;
  }
  return em * fontSize;
}

/** `text` shortened with an ellipsis to fit `width` pixels. */
function truncate(text: string, fontSize: number, width: number): string {
  // The small margin: the label column is sized from the same estimate, and a sum of
  // fractions that rounds differently must not cut the longest label.
  if (textWidth(text, fontSize) <= width + 0.01) return text;
  const chars = [...text];
  while (chars.length > 1 && textWidth(`${chars.join("")}…`, fontSize) > width) chars.pop();
  return `${chars.join("").trimEnd()}…`;
}

// ---- the chart ----

const COLORS = {
  background: "#ffffff",
  border: "#d0d7de",
  text: "#1f2328",
  muted: "#59636e",
  grid: "#d8dee4",
  minorGrid: "#eff2f5",
  baseline: "#59636e",
  met: "#0969da",
  missed: "#e16f24",
  noTarget: "#8c959f",
  target: "#1f2328",
} as const;

const FONT =
  "-apple-system, BlinkMacSystemFont, 'Segoe UI', 'Noto Sans', Helvetica, Arial, sans-serif";

const PAD = 16;
const LABEL_FONT = 12;
const VALUE_FONT = 11;
const GROUP_ROW = 26;
const BAR_ROW = 22;
const BAR_HEIGHT = 14;

const n = (x: number) => String(Math.round(x * 10) / 10);

function rowText(row: BarRow, unitText: (v: number) => string): string {
  const target =
    row.target === undefined
      ? ""
      : ` (target ≤ ${unitText(row.target)}: ${row.value <= row.target ? "met" : "not met"})`;
  return `${row.note ?? row.label}: ${unitText(row.value)}${target}`;
}

/** The chart as an SVG document (a string, starting with `<svg`). */
export function barChartSvg(rows: readonly BarRow[], options: BarChartOptions): string {
  if (rows.length === 0) throw new Error("barChartSvg: no rows");
  for (const r of rows) {
    if (!Number.isFinite(r.value) || (r.target !== undefined && !Number.isFinite(r.target))) {
      throw new Error(`barChartSvg: row "${r.label}" has a non-finite value or target`);
    }
  }
  const width = options.width ?? 760;
  const unit = options.unit ?? "";
  const format = options.format ?? formatValue;
  const valueText = (v: number) => `${format(v)}${unit}`;
  const tickText = (v: number) => `${formatTick(v)}${unit}`;
  const id = options.id ?? "chart";

  // Groups in order of first appearance, rows in order within them.
  const groups = new Map<string, BarRow[]>();
  for (const r of rows) {
    const g = r.group ?? "";
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g)!.push(r);
  }

  // Columns: labels | plot | values at the bars' ends.
  const labelColumn = Math.min(
    Math.max(...rows.map((r) => textWidth(r.label, LABEL_FONT))) + 12,
    width * 0.4,
  );
  const valueColumn = Math.max(...rows.map((r) => textWidth(valueText(r.value), VALUE_FONT))) + 10;
  const plotLeft = PAD + labelColumn;
  const plotRight = width - PAD - valueColumn;
  const plotWidth = plotRight - plotLeft;
  if (plotWidth < 100) throw new Error(`barChartSvg: ${width} px is too narrow for these labels`);

  const requested = options.scale ?? "auto";
  const values = rows.flatMap((r) => (r.target === undefined ? [r.value] : [r.value, r.target]));
  const kind = requested === "auto" ? autoScaleKind(values) : requested;
  const baseline = options.baseline ?? (kind === "log" ? 1 : 0);
  // About one labelled tick per 60 px, so the labels do not collide.
  const scale = chooseScale(
    [...values, baseline],
    kind,
    Math.max(2, Math.min(10, Math.floor(plotWidth / 60))),
  );
  const x = (v: number) => plotLeft + scale.position(v) * plotWidth;

  const anyTarget = rows.some((r) => r.target !== undefined);
  const out: string[] = [];
  let y = PAD;

  // Title, subtitle, legend.
  y += 16;
  out.push(
    `<text x="${PAD}" y="${y}" font-size="16" font-weight="600">${escapeXml(truncate(options.title, 16, width - 2 * PAD))}</text>`,
  );
  if (options.subtitle) {
    y += 20;
    out.push(
      `<text x="${PAD}" y="${y}" font-size="12" fill="${COLORS.muted}">${escapeXml(truncate(options.subtitle, 12, width - 2 * PAD))}</text>`,
    );
  }
  if (anyTarget) {
    y += 22;
    let lx = PAD;
    const entries: [string, string][] = [
      [COLORS.met, "within target"],
      [COLORS.missed, "over target"],
      ...(rows.some((r) => r.target === undefined)
        ? [[COLORS.noTarget, "no target"] as [string, string]]
        : []),
    ];
    out.push(`<g font-size="11" fill="${COLORS.muted}">`);
    for (const [color, text] of entries) {
      out.push(
        `<rect x="${n(lx)}" y="${y - 9}" width="10" height="10" rx="2" fill="${color}"/>`,
        `<text x="${n(lx + 14)}" y="${y}">${escapeXml(text)}</text>`,
      );
      lx += 14 + textWidth(text, 11) + 16;
    }
    out.push(
      `<line x1="${n(lx + 4)}" y1="${y - 11}" x2="${n(lx + 4)}" y2="${y + 2}" stroke="${COLORS.target}" stroke-width="2"/>`,
      `<text x="${n(lx + 12)}" y="${y}">target (upper bound)</text>`,
      `</g>`,
    );
  }
  y += 14;

  // Rows. The grid is drawn once their extent is known, so it goes under them, and only
  // beside the bars: not through the group headings.
  const plotTop = y;
  const body: string[] = [];
  const segments: [number, number][] = [];
  const barX0 = x(baseline);
  for (const [group, members] of groups) {
    if (group !== "") {
      if (y > plotTop) {
        body.push(
          `<line x1="${PAD}" y1="${y + 0.5}" x2="${width - PAD}" y2="${y + 0.5}" stroke="${COLORS.grid}"/>`,
        );
      }
      body.push(
        `<text x="${PAD}" y="${y + 18}" font-size="12" font-weight="600">${escapeXml(truncate(group, 12, width - 2 * PAD))}</text>`,
      );
      y += GROUP_ROW;
    }
    segments.push([y, y + members.length * BAR_ROW]);
    for (const r of members) {
      const met = r.target === undefined ? undefined : r.value <= r.target;
      const color = met === undefined ? COLORS.noTarget : met ? COLORS.met : COLORS.missed;
      const x1 = x(r.value);
      const left = Math.min(barX0, x1);
      const barWidth = Math.max(1, Math.abs(x1 - barX0));
      const barY = y + (BAR_ROW - BAR_HEIGHT) / 2;
      const textY = y + BAR_ROW / 2 + 4;
      body.push(
        `<g>`,
        `<title>${escapeXml(rowText(r, valueText))}</title>`,
        `<text x="${n(plotLeft - 8)}" y="${n(textY)}" font-size="${LABEL_FONT}" text-anchor="end">${escapeXml(truncate(r.label, LABEL_FONT, labelColumn - 12))}</text>`,
        `<rect class="bar" x="${n(left)}" y="${n(barY)}" width="${n(barWidth)}" height="${BAR_HEIGHT}" rx="2" fill="${color}"/>`,
      );
      if (r.target !== undefined) {
        const tx = n(x(r.target));
        body.push(
          `<line x1="${tx}" y1="${n(barY - 3)}" x2="${tx}" y2="${n(barY + BAR_HEIGHT + 3)}" stroke="${COLORS.target}" stroke-width="2"/>`,
        );
      }
      // The value just after the bar, or after the target marker if it would cross the text.
      const text = valueText(r.value);
      let valueX = Math.max(x1, barX0) + 5;
      if (r.target !== undefined) {
        const tx = x(r.target);
        if (tx >= valueX - 4 && tx <= valueX + textWidth(text, VALUE_FONT) + 2) valueX = tx + 5;
      }
      body.push(
        `<text class="value" x="${n(valueX)}" y="${n(textY - 0.5)}" font-size="${VALUE_FONT}">${escapeXml(text)}</text>`,
        `</g>`,
      );
      y += BAR_ROW;
    }
  }
  const plotBottom = y + 4;
  segments.at(-1)![1] = plotBottom;

  // Grid, baseline, axis.
  const grid: string[] = [];
  const vertical = (at: number, color: string) => {
    for (const [top, bottom] of segments) {
      grid.push(`<line x1="${n(at)}" y1="${top}" x2="${n(at)}" y2="${bottom}" stroke="${color}"/>`);
    }
  };
  for (const t of scale.minorTicks) vertical(x(t), COLORS.minorGrid);
  for (const t of scale.ticks) vertical(x(t), COLORS.grid);
  vertical(barX0, COLORS.baseline);
  const axis: string[] = [
    `<line x1="${n(plotLeft)}" y1="${plotBottom}" x2="${n(plotRight)}" y2="${plotBottom}" stroke="${COLORS.baseline}"/>`,
  ];
  for (const t of scale.ticks) {
    axis.push(
      `<line x1="${n(x(t))}" y1="${plotBottom}" x2="${n(x(t))}" y2="${plotBottom + 4}" stroke="${COLORS.baseline}"/>`,
      `<text class="tick" x="${n(x(t))}" y="${plotBottom + 17}" font-size="11" fill="${COLORS.muted}" text-anchor="middle">${escapeXml(tickText(t))}</text>`,
    );
  }
  y = plotBottom + 17;
  const axisTitle = `${options.axisLabel ?? "value"}${scale.kind === "log" ? " (log scale)" : ""}`;
  y += 18;
  axis.push(
    `<text x="${n(plotLeft + plotWidth / 2)}" y="${y}" font-size="11" fill="${COLORS.muted}" text-anchor="middle">${escapeXml(axisTitle)}</text>`,
  );
  const height = y + PAD;

  const description =
    options.description ??
    [
      `${options.title}.`,
      ...[...groups].map(
        ([group, members]) =>
          `${group === "" ? "" : `${group}: `}${members.map((r) => rowText(r, valueText)).join("; ")}.`,
      ),
    ].join(" ");

  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}-title ${id}-desc" font-family="${escapeXml(FONT)}" fill="${COLORS.text}">`,
    `<title id="${id}-title">${escapeXml(options.title)}</title>`,
    `<desc id="${id}-desc">${escapeXml(description)}</desc>`,
    `<rect x="0.5" y="0.5" width="${width - 1}" height="${height - 1}" rx="6" fill="${COLORS.background}" stroke="${COLORS.border}"/>`,
    ...grid,
    ...out,
    ...body,
    ...axis,
    `</svg>`,
    "",
  ].join("\n");
}

export interface StackOptions {
  title: string;
  /** The text for screen readers; by default the title, then each chart's title and description. */
  description?: string;
  /** Vertical space between the charts, in pixels. Default 12. */
  gap?: number;
  id?: string;
}

/**
 * Several charts (from `barChartSvg`, with distinct `id`s) one above the other in one SVG
 * document, each keeping its own axis: for values of very different sizes that one axis would
 * squeeze together.
 */
export function stackSvg(charts: readonly string[], options: StackOptions): string {
  if (charts.length === 0) throw new Error("stackSvg: no charts");
  const gap = options.gap ?? 12;
  const id = options.id ?? "stack";
  const sizes = charts.map((svg) => {
    const root = /^<svg\b[^>]*>/.exec(svg)?.[0] ?? "";
    const width = Number(/\swidth="([\d.]+)"/.exec(root)?.[1]);
    const height = Number(/\sheight="([\d.]+)"/.exec(root)?.[1]);
    if (!(width > 0 && height > 0)) throw new Error("stackSvg: a chart without width and height");
    return { width, height };
  });
  const width = Math.max(...sizes.map((s) => s.width));
  const height = sizes.reduce((h, s) => h + s.height, 0) + gap * (charts.length - 1);
  const text = (svg: string, tag: string) =>
    new RegExp(`<${tag}\\b[^>]*>([^<]*)</${tag}>`).exec(svg)?.[1] ?? "";
  const description =
    options.description === undefined
      ? [escapeXml(`${options.title}.`), ...charts.map((svg) => text(svg, "desc"))].join(" ")
      : escapeXml(options.description);
  let y = 0;
  const nested = charts.map((svg, k) => {
    // The chart's root element, placed at its offset: a nested <svg> is a new viewport.
    const placed = svg.replace(/^<svg\b/, `<svg x="0" y="${y}"`).trimEnd();
    y += sizes[k]!.height + gap;
    return placed;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="${id}-title ${id}-desc">`,
    `<title id="${id}-title">${escapeXml(options.title)}</title>`,
    `<desc id="${id}-desc">${description}</desc>`,
    ...nested,
    `</svg>`,
    "",
  ].join("\n");
}
