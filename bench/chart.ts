// Horizontal bar charts of ratios for the benchmark reports (docs/benchmarks.svg,
// docs/gradbench.svg), as Vega-Lite specs rendered to a standalone SVG string by Vega in Node
// (no browser, no canvas). Rows of numbers (derivative ÷ primal, nabla ÷ another tool) in
// labelled groups that share one axis, with optional targets drawn as markers; several such
// charts stack one above the other, each with its own axis.
//
// The SVG has its own white background, so it reads the same in GitHub's light and dark themes
// (an <img> does not inherit the page's colours), and Vega gives every bar an aria-label.

import { Encodings, Font, FontNames } from "@pdf-lib/standard-fonts";
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";

export interface BarRow {
  /** Rows with the same group are drawn together under its heading, in order of appearance. */
  group?: string;
  label: string;
  value: number;
  /** An upper bound: drawn as a marker; the bar is coloured as a miss when `value > target`. */
  target?: number;
  /** A longer text for the bar's aria-label (for example the full name). */
  note?: string;
}

/** One chart of a figure: its rows and how to draw them. */
export interface BarChart {
  rows: readonly BarRow[];
  title: string;
  /** A line under the title. */
  subtitle?: string;
  /** The axis title, e.g. "time ratio"; " (log scale)" is appended on a log scale. */
  axisLabel?: string;
  /** "auto" (the default): log if all values are positive and span 10× or more. */
  scale?: "log" | "linear" | "auto";
  /** Appended to the numbers on the axis and the bars, e.g. "×". */
  unit?: string;
}

const COLORS = {
  text: "#1f2328",
  muted: "#59636e",
  grid: "#d8dee4",
  target: "#1f2328",
};
const STATUS: Record<string, string> = {
  "within target": "#0969da",
  "over target": "#e16f24",
  "no target": "#8c959f",
};
const LABEL_FONT = 12;
// Helvetica, Arial and Liberation Sans have the same metrics, measured below.
const FONT = "Helvetica, Arial, 'Liberation Sans', sans-serif";

/** A value at a bar's end: 2 decimals below 10, 1 below 100, then whole numbers. */
function formatValue(v: number): string {
  const a = Math.abs(v);
  if (a >= 100) return Math.round(v).toLocaleString("en-US");
  return v.toFixed(a >= 10 ? 1 : 2);
}

/** Log if all values are positive and the largest is 10× the smallest or more, else linear. */
function autoScale(values: readonly number[]): "log" | "linear" {
  const lo = Math.min(...values);
  return lo > 0 && Math.max(...values) / lo >= 10 ? "log" : "linear";
}

/**
 * The Vega-Lite spec of one chart: a title, a legend, then one panel per group, the labels in a
 * column `labelColumn` pixels wide.
 */
function chartSpec(options: BarChart, labelColumn: number): object {
  const rows = options.rows;
  if (rows.length === 0) throw new Error("barChart: no rows");
  for (const r of rows) {
    if (!Number.isFinite(r.value) || (r.target !== undefined && !Number.isFinite(r.target))) {
      throw new Error(`barChart: row "${r.label}" has a non-finite value or target`);
    }
  }
  const unit = options.unit ?? "";
  const values = rows.flatMap((r) => (r.target === undefined ? [r.value] : [r.value, r.target]));
  const kind =
    options.scale === undefined || options.scale === "auto" ? autoScale(values) : options.scale;
  if (kind === "log" && Math.min(...values) <= 0) {
    throw new Error("barChart: a log scale needs positive values");
  }
  // Where bars start: a ratio of 1 is parity on a log scale.
  const baseline = kind === "log" ? 1 : 0;
  const data = rows.map((r) => {
    const text = `${formatValue(r.value)}${unit}`;
    const target =
      r.target === undefined
        ? ""
        : ` (target ≤ ${formatValue(r.target)}${unit}: ${r.value <= r.target ? "met" : "not met"})`;
    return {
      group: r.group ?? "",
      label: r.label,
      value: r.value,
      target: r.target ?? null,
      status:
        r.target === undefined
          ? "no target"
          : r.value <= r.target
            ? "within target"
            : "over target",
      text,
      // The value is written after the bar, or after the target marker so it never crosses it.
      textAt: Math.max(r.value, r.target ?? r.value, baseline),
      description: `${r.note ?? r.label}: ${text}${target}`,
    };
  });
  const groups = [...new Set(data.map((d) => d.group))];
  const statuses = Object.keys(STATUS).filter((s) => data.some((d) => d.status === s));
  const x = (last: boolean) => ({
    type: "quantitative" as const,
    scale: { type: kind, ...(kind === "log" ? {} : { zero: true }) },
    axis: last
      ? {
          title: `${options.axisLabel ?? "value"}${kind === "log" ? " (log scale)" : ""}`,
          format: ",",
          tickCount: 8,
          labelExpr: `datum.label + ${JSON.stringify(unit)}`,
          ...(kind === "log" ? { values: decades(values, baseline) } : {}),
        }
      : { title: null, labels: false, ticks: false, domain: false },
  });
  const panels = groups.map((group, k) => {
    const last = k === groups.length - 1;
    return {
      ...(group === ""
        ? {}
        : {
            title: {
              text: group,
              frame: "bounds",
              anchor: "start",
              fontSize: 12,
              fontWeight: "bold",
              offset: 6,
            },
          }),
      data: { values: data.filter((d) => d.group === group) },
      width: 440,
      height: { step: 22 },
      encoding: {
        y: {
          field: "label",
          type: "nominal",
          sort: null,
          axis: {
            title: null,
            labelLimit: 0,
            ticks: false,
            domain: false,
            labelPadding: 8,
            labelFontSize: LABEL_FONT,
            labelColor: COLORS.text,
            minExtent: labelColumn,
            maxExtent: labelColumn,
          },
        },
        description: { field: "description" },
      },
      layer: [
        {
          mark: { type: "bar", height: 14, cornerRadius: 2 },
          encoding: {
            x: { field: "value", ...x(last) },
            x2: { datum: baseline },
            color: {
              field: "status",
              type: "nominal",
              scale: { domain: statuses, range: statuses.map((s) => STATUS[s]!) },
              // No legend when no row has a target: all bars are grey.
              legend: data.some((d) => d.target !== null)
                ? { title: null, orient: "top", direction: "horizontal" }
                : null,
            },
          },
        },
        {
          transform: [{ filter: "datum.target != null" }],
          mark: { type: "tick", thickness: 2, size: 20, color: COLORS.target, opacity: 1 },
          encoding: { x: { field: "target", type: "quantitative" } },
        },
        {
          mark: { type: "text", align: "left", dx: 5, fontSize: 11, color: COLORS.text },
          encoding: { x: { field: "textAt", type: "quantitative" }, text: { field: "text" } },
        },
      ],
    };
  });
  return {
    title: {
      text: options.title,
      ...(options.subtitle === undefined ? {} : { subtitle: options.subtitle }),
      anchor: "start",
      frame: "bounds",
    },
    vconcat: panels,
    spacing: 6,
    resolve: { scale: { x: "shared", y: "independent" } },
  };
}

/** The labelled ticks of a log axis: the powers of ten in the range, every other if many. */
function decades(values: readonly number[], baseline: number): number[] {
  const lo = Math.floor(Math.log10(Math.min(...values, baseline)));
  const hi = Math.ceil(Math.log10(Math.max(...values, baseline)));
  const every = Math.ceil((hi - lo + 1) / 8);
  const ticks: number[] = [];
  for (let e = lo; e <= hi; e += every) ticks.push(10 ** e);
  return ticks;
}

/** The charts one above the other, each with its own axis and legend, as one Vega-Lite spec. */
export function figure(charts: readonly BarChart[], description: string): TopLevelSpec {
  if (charts.length === 0) throw new Error("figure: no charts");
  // Every panel's label column as wide as the widest label, so that the headings line up.
  const labels = charts.flatMap((c) => c.rows.map((r) => textWidth(r.label, LABEL_FONT)));
  const labelColumn = Math.ceil(Math.max(...labels)) + 8;
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    description,
    background: "white",
    padding: 16,
    spacing: 28,
    vconcat: charts.map((c) => chartSpec(c, labelColumn)),
    resolve: {
      scale: { x: "independent", color: "independent" },
      legend: { color: "independent" },
    },
    config: {
      font: FONT,
      view: { stroke: null },
      title: {
        fontSize: 16,
        fontWeight: "bold",
        color: COLORS.text,
        subtitleColor: COLORS.muted,
        subtitleFontSize: 12,
        offset: 10,
      },
      axis: {
        gridColor: COLORS.grid,
        labelColor: COLORS.muted,
        titleColor: COLORS.muted,
        titleFontWeight: "normal",
        labelFontSize: 11,
        titleFontSize: 11,
      },
      legend: {
        labelColor: COLORS.muted,
        labelFontSize: 11,
        symbolType: "square",
        symbolSize: 100,
        layout: { top: { anchor: "start" } },
      },
    },
  } as unknown as TopLevelSpec;
}

// ---- rendering ----

// Vega measures text to lay out the axes; without a canvas it would guess 0.8 em per character.
// The standard PDF font metrics are Helvetica's (and so Arial's), the font the charts ask for.
const fonts = {
  regular: Font.load(FontNames.Helvetica),
  bold: Font.load(FontNames.HelveticaBold),
};

/** The width of `text` in Helvetica, in pixels; characters it lacks count 0.6 em. */
export function textWidth(text: string, fontSize: number, bold = false): number {
  const font = bold ? fonts.bold : fonts.regular;
  let units = 0;
  for (const c of text) {
    const code = c.codePointAt(0)!;
    const glyph = Encodings.WinAnsi.canEncodeUnicodeCodePoint(code)
      ? font.getWidthOfGlyph(Encodings.WinAnsi.encodeUnicodeCodePoint(code).name)
      : undefined;
    units += glyph ?? 600;
  }
  return (units / 1000) * fontSize;
}

interface TextItem {
  text?: unknown;
  fontSize?: number;
  fontWeight?: string | number;
}
// The hook vl-convert uses too; vega's types do not declare it.
(vega as unknown as { textMetrics: { width: unknown } }).textMetrics.width = (
  item: TextItem,
  text?: unknown,
) => {
  const weight = item.fontWeight;
  const bold = weight === "bold" || Number(weight) >= 600;
  return textWidth(String(text ?? item.text ?? "").trim(), item.fontSize ?? 11, bold);
};

/** The figure as an SVG document (a string starting with `<svg`). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const warnings: string[] = [];
  const logger = {
    level: () => logger,
    warn: (...args: unknown[]) => (warnings.push(args.join(" ")), logger),
    info: () => logger,
    debug: () => logger,
    error: (...args: unknown[]) => {
      throw new Error(args.join(" "));
    },
  };
  const compiled = compile(spec, { logger: logger as never }).spec;
  if (warnings.length > 0) throw new Error(`Vega-Lite: ${warnings.join("; ")}`);
  const svg = await new vega.View(vega.parse(compiled), { renderer: "none" }).toSVG();
  // Vega leaves the spec's description out of the SVG: a <title> names the image.
  const title = (spec.description ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
  return `${svg.replace(/^<svg\b[^>]*>/, (root) => `${root}<title>${title}</title>`)}\n`;
}
