// The page around model.ts: the points and the fitted curve on one canvas, the loss per step
// on another, pointer handling for the points, and the training loop (a few Adam steps per
// animation frame). Nothing here is differentiated: the derivatives are model.ts's.
import { wasmStats } from "nabla";
import { Adam, initParams, loss, predict, trainStep, type Point } from "./model.js";

/** Adam steps per animation frame (about 300 a second at 60 frames a second). */
const STEPS_PER_FRAME = 5;
/** Training stops below this loss: every point is then within a pixel of the curve. */
const FITTED_LOSS = 1e-6;
/** The loss plot shows the whole run up to this many steps, then the most recent ones. */
const LOSS_WINDOW = 3000;
const MAX_POINTS = 40;
/** Space around the region x, y ∈ [-1, 1] on the canvas, in CSS pixels. */
const MARGIN = 28;
const POINT_RADIUS = 7;
/** How close (CSS pixels) a pointer must come to a point to grab it. */
const GRAB_DISTANCE = { mouse: 12, touch: 22 };

const INITIAL_POINTS: readonly Point[] = [
  { x: -0.85, y: -0.35 },
  { x: -0.6, y: 0.25 },
  { x: -0.35, y: 0.5 },
  { x: -0.1, y: 0.1 },
  { x: 0.15, y: -0.3 },
  { x: 0.4, y: -0.15 },
  { x: 0.62, y: 0.4 },
  { x: 0.85, y: 0.55 },
];

// ---------------------------------------------------------------------------------------------
// Elements

function element<T extends HTMLElement>(id: string, type: new () => T): T {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error(`index.html has no <${type.name}> #${id}`);
  return found;
}

function context2d(canvas: HTMLCanvasElement): CanvasRenderingContext2D {
  const context = canvas.getContext("2d");
  if (!context) throw new Error("this browser has no 2D canvas");
  return context;
}

const plot = element("plot", HTMLCanvasElement);
const lossPlot = element("loss-plot", HTMLCanvasElement);
const plotContext = context2d(plot);
const lossContext = context2d(lossPlot);
const stepText = element("step", HTMLSpanElement);
const lossText = element("loss", HTMLSpanElement);
const countText = element("count", HTMLSpanElement);
const stateText = element("state", HTMLSpanElement);
const pauseButton = element("pause", HTMLButtonElement);
const resetButton = element("reset", HTMLButtonElement);

/** The canvas colours, from the CSS custom properties of style.css (light or dark). */
interface Theme {
  background: string;
  grid: string;
  axis: string;
  curve: string;
  point: string;
  pointRing: string;
  residual: string;
  loss: string;
  label: string;
}

function readTheme(): Theme {
  const style = getComputedStyle(document.documentElement);
  const color = (name: string) => style.getPropertyValue(name).trim();
  return {
    background: color("--plot-bg"),
    grid: color("--plot-grid"),
    axis: color("--plot-axis"),
    curve: color("--curve"),
    point: color("--point"),
    pointRing: color("--point-ring"),
    residual: color("--residual"),
    loss: color("--loss"),
    label: color("--muted"),
  };
}

// ---------------------------------------------------------------------------------------------
// State

let points: Point[] = INITIAL_POINTS.map((p) => ({ ...p }));
let seed = 1;
let params = initParams(seed);
let optimizer = new Adam(params);
let step = 0;
/** The loss of the current parameters on the current points, as last computed. */
let currentLoss = loss(params, points);
/** The loss of steps `historyStart`, `historyStart + 1`, …, `step - 1`. */
let history: number[] = [];
let historyStart = 0;
let paused = false;
let fitted = false;
/** The point being dragged, by which pointer, and where on the point it was grabbed. */
let dragged: { index: number; pointerId: number; offsetX: number; offsetY: number } | undefined;
let hovered = -1;
let theme = readTheme();
let needsDraw = true;

// ---------------------------------------------------------------------------------------------
// Training

function train(): void {
  for (let k = 0; k < STEPS_PER_FRAME && !fitted; k++) {
    currentLoss = trainStep(params, optimizer, points);
    history.push(currentLoss);
    step++;
    fitted = currentLoss < FITTED_LOSS;
  }
  if (history.length > LOSS_WINDOW) {
    const excess = history.length - LOSS_WINDOW;
    history.splice(0, excess);
    historyStart += excess;
  }
}

/** The points or the weights changed: the loss is recomputed at once (even while paused). */
function lossChanged(): void {
  currentLoss = loss(params, points);
  fitted = false;
  needsDraw = true;
}

/** New random weights (a new seed each time), a fresh optimizer and an empty loss plot. */
function reset(): void {
  seed++;
  params = initParams(seed);
  optimizer = new Adam(params);
  step = 0;
  history = [];
  historyStart = 0;
  lossChanged();
}

function setPaused(value: boolean): void {
  paused = value;
  pauseButton.textContent = paused ? "Resume" : "Pause";
  pauseButton.setAttribute("aria-pressed", String(paused));
  needsDraw = true;
}

// ---------------------------------------------------------------------------------------------
// Coordinates: the region x, y ∈ [-1, 1] fills the canvas but for a margin.

function toCanvasX(x: number, width: number): number {
  return MARGIN + ((x + 1) / 2) * (width - 2 * MARGIN);
}

function toCanvasY(y: number, height: number): number {
  return MARGIN + ((1 - y) / 2) * (height - 2 * MARGIN);
}

function fromCanvasX(cx: number, width: number): number {
  return ((cx - MARGIN) / (width - 2 * MARGIN)) * 2 - 1;
}

function fromCanvasY(cy: number, height: number): number {
  return 1 - ((cy - MARGIN) / (height - 2 * MARGIN)) * 2;
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}

/** The point at a position of the viewport (CSS pixels), kept inside the region. */
function pointAt(clientX: number, clientY: number): Point {
  const rect = plot.getBoundingClientRect();
  return {
    x: clamp(fromCanvasX(clientX - rect.left, rect.width), -1, 1),
    y: clamp(fromCanvasY(clientY - rect.top, rect.height), -1, 1),
  };
}

/** Where a point is in the viewport, in CSS pixels. */
function clientPosition(p: Point): { x: number; y: number } {
  const rect = plot.getBoundingClientRect();
  return { x: rect.left + toCanvasX(p.x, rect.width), y: rect.top + toCanvasY(p.y, rect.height) };
}

/** The index of the point nearest the pointer within grabbing distance, or -1. */
function pointUnder(event: PointerEvent | MouseEvent): number {
  const touch = "pointerType" in event && event.pointerType === "touch";
  let best = -1;
  let bestDistance = touch ? GRAB_DISTANCE.touch : GRAB_DISTANCE.mouse;
  points.forEach((p, i) => {
    const { x, y } = clientPosition(p);
    const distance = Math.hypot(x - event.clientX, y - event.clientY);
    if (distance <= bestDistance) {
      best = i;
      bestDistance = distance;
    }
  });
  return best;
}

// ---------------------------------------------------------------------------------------------
// Drawing

/** Sizes the canvas's pixels to its CSS size times the device pixel ratio. */
function fitToDisplay(canvas: HTMLCanvasElement, context: CanvasRenderingContext2D) {
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth;
  const height = canvas.clientHeight;
  const pixelWidth = Math.round(width * ratio);
  const pixelHeight = Math.round(height * ratio);
  if (canvas.width !== pixelWidth || canvas.height !== pixelHeight) {
    canvas.width = pixelWidth;
    canvas.height = pixelHeight;
  }
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  return { width, height };
}

function line(context: CanvasRenderingContext2D, x0: number, y0: number, x1: number, y1: number) {
  context.beginPath();
  context.moveTo(x0, y0);
  context.lineTo(x1, y1);
  context.stroke();
}

function drawPlot(): void {
  const context = plotContext;
  const { width, height } = fitToDisplay(plot, context);
  context.fillStyle = theme.background;
  context.fillRect(0, 0, width, height);

  // Grid lines every 0.5, the axes darker.
  context.lineWidth = 1;
  for (let v = -1; v <= 1; v += 0.5) {
    context.strokeStyle = v === 0 ? theme.axis : theme.grid;
    const cx = Math.round(toCanvasX(v, width)) + 0.5;
    const cy = Math.round(toCanvasY(v, height)) + 0.5;
    line(context, cx, MARGIN, cx, height - MARGIN);
    line(context, MARGIN, cy, width - MARGIN, cy);
  }

  // Residuals: from each point to the curve.
  context.strokeStyle = theme.residual;
  context.setLineDash([3, 4]);
  for (const p of points) {
    const cx = toCanvasX(p.x, width);
    line(context, cx, toCanvasY(p.y, height), cx, toCanvasY(predict(params, p.x), height));
  }
  context.setLineDash([]);

  // The curve, across the whole canvas.
  context.beginPath();
  for (let cx = 0; cx <= width; cx += 2) {
    const cy = toCanvasY(predict(params, fromCanvasX(cx, width)), height);
    if (cx === 0) context.moveTo(cx, cy);
    else context.lineTo(cx, cy);
  }
  context.strokeStyle = theme.curve;
  context.lineWidth = 3;
  context.lineJoin = "round";
  context.stroke();

  // The points, the grabbed or hovered one larger.
  points.forEach((p, i) => {
    const active = i === (dragged?.index ?? hovered);
    context.beginPath();
    context.arc(
      toCanvasX(p.x, width),
      toCanvasY(p.y, height),
      active ? POINT_RADIUS + 2 : POINT_RADIUS,
      0,
      2 * Math.PI,
    );
    context.fillStyle = theme.point;
    context.fill();
    context.lineWidth = 2;
    context.strokeStyle = theme.pointRing;
    context.stroke();
  });
}

const SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹";

/** "10⁻³" for -3. */
function powerOfTen(exponent: number): string {
  const digits = String(Math.abs(exponent)).replace(/\d/g, (d) => SUPERSCRIPTS[Number(d)] ?? d);
  return `10${exponent < 0 ? "⁻" : ""}${digits}`;
}

function drawLossPlot(): void {
  const context = lossContext;
  const { width, height } = fitToDisplay(lossPlot, context);
  context.fillStyle = theme.background;
  context.fillRect(0, 0, width, height);

  const left = 40;
  const right = width - 10;
  const top = 10;
  const bottom = height - 20;

  // The vertical range: whole decades around the losses shown, at least two.
  let lowest = Infinity;
  let highest = -Infinity;
  for (const value of history) {
    if (value > 0 && Number.isFinite(value)) {
      lowest = Math.min(lowest, Math.log10(value));
      highest = Math.max(highest, Math.log10(value));
    }
  }
  if (lowest > highest) return;
  const topDecade = Math.ceil(highest);
  const bottomDecade = Math.min(Math.floor(lowest), topDecade - 2);
  const toY = (value: number) =>
    top + ((topDecade - Math.log10(value)) / (topDecade - bottomDecade)) * (bottom - top);
  const span = Math.max(history.length, 300);
  const toX = (i: number) => left + (i / (span - 1)) * (right - left);

  context.font = "11px system-ui, sans-serif";
  context.fillStyle = theme.label;
  context.lineWidth = 1;
  context.textBaseline = "middle";
  context.textAlign = "right";
  const labelEvery = Math.ceil((topDecade - bottomDecade) / 6);
  for (let decade = bottomDecade; decade <= topDecade; decade++) {
    const y = Math.round(toY(10 ** decade)) + 0.5;
    context.strokeStyle = theme.grid;
    line(context, left, y, right, y);
    if ((topDecade - decade) % labelEvery === 0) context.fillText(powerOfTen(decade), left - 6, y);
  }
  context.textBaseline = "alphabetic";
  context.textAlign = "left";
  context.fillText(`step ${historyStart}`, left, height - 5);
  context.textAlign = "right";
  context.fillText(String(historyStart + span), right, height - 5);

  context.beginPath();
  history.forEach((value, i) => {
    const y = toY(Math.max(value, 10 ** bottomDecade));
    if (i === 0) context.moveTo(toX(i), y);
    else context.lineTo(toX(i), y);
  });
  context.strokeStyle = theme.loss;
  context.lineWidth = 1.5;
  context.lineJoin = "round";
  context.stroke();
}

function updateReadout(): void {
  stepText.textContent = String(step);
  lossText.textContent = currentLoss.toExponential(2);
  countText.textContent = String(points.length);
  const state = paused ? "paused" : fitted ? "fitted" : "training";
  stateText.textContent = state;
  stateText.className = state;
}

function frame(): void {
  if (!paused && !fitted) {
    train();
    needsDraw = true;
  }
  if (needsDraw) {
    drawPlot();
    drawLossPlot();
    updateReadout();
    needsDraw = false;
  }
  requestAnimationFrame(frame);
}

// ---------------------------------------------------------------------------------------------
// Input

function setHovered(index: number): void {
  if (index !== hovered) needsDraw = true;
  hovered = index;
  plot.classList.toggle("over-point", hovered >= 0);
}

plot.addEventListener("pointerdown", (event) => {
  if (event.button !== 0) return;
  let index = pointUnder(event);
  if (index < 0) {
    // A click on empty space adds a point there, already grabbed: press and drag to place it.
    if (points.length >= MAX_POINTS) return;
    points.push(pointAt(event.clientX, event.clientY));
    index = points.length - 1;
    lossChanged();
  }
  // The point keeps its place under the pointer: it does not jump to the pointer's tip.
  const grabbed = clientPosition(points[index]);
  dragged = {
    index,
    pointerId: event.pointerId,
    offsetX: event.clientX - grabbed.x,
    offsetY: event.clientY - grabbed.y,
  };
  plot.setPointerCapture(event.pointerId);
  plot.classList.add("dragging");
  needsDraw = true;
  event.preventDefault();
});

plot.addEventListener("pointermove", (event) => {
  if (dragged && dragged.pointerId === event.pointerId) {
    points[dragged.index] = pointAt(
      event.clientX - dragged.offsetX,
      event.clientY - dragged.offsetY,
    );
    lossChanged();
  } else if (!dragged) {
    setHovered(pointUnder(event));
  }
});

function endDrag(event: PointerEvent): void {
  if (dragged?.pointerId !== event.pointerId) return;
  dragged = undefined;
  plot.classList.remove("dragging");
  needsDraw = true;
}
plot.addEventListener("pointerup", endDrag);
plot.addEventListener("pointercancel", endDrag);
plot.addEventListener("pointerleave", () => {
  if (!dragged) setHovered(-1);
});

plot.addEventListener("dblclick", (event) => {
  const index = pointUnder(event);
  if (index < 0 || points.length <= 1) return;
  points.splice(index, 1);
  setHovered(-1);
  lossChanged();
});

pauseButton.addEventListener("click", () => setPaused(!paused));
resetButton.addEventListener("click", reset);

window.addEventListener("keydown", (event) => {
  // A focused button handles its own Space; shortcuts leave modified keys to the browser.
  if (event.target instanceof HTMLButtonElement || event.ctrlKey || event.metaKey || event.altKey) {
    return;
  }
  if (event.key === " ") {
    setPaused(!paused);
    event.preventDefault();
  } else if (event.key === "r" || event.key === "R") {
    reset();
  }
});

matchMedia("(prefers-color-scheme: dark)").addEventListener("change", () => {
  theme = readTheme();
  needsDraw = true;
});
const resized = new ResizeObserver(() => (needsDraw = true));
resized.observe(plot);
resized.observe(lossPlot);

// ---------------------------------------------------------------------------------------------
// For the end-to-end test (test/browser.test.ts), which reads the page itself as well.

/** What `window.__curveFit` offers. */
export interface CurveFitHook {
  readonly step: number;
  readonly loss: number;
  readonly paused: boolean;
  readonly fitted: boolean;
  /** A copy of the points, in plot coordinates. */
  points(): Point[];
  /** Replaces the points (at least one; clamped to the region). */
  setPoints(points: readonly Point[]): void;
  /** Where the points are in the viewport, in CSS pixels: where a mouse would grab them. */
  pointPositions(): { x: number; y: number }[];
  /** Gradient calls that ran in WebAssembly and as JavaScript (with `backend: "wasm"`). */
  wasmCalls(): { wasm: number; javascript: number };
}

declare global {
  interface Window {
    __curveFit: CurveFitHook;
  }
}

window.__curveFit = {
  get step() {
    return step;
  },
  get loss() {
    return currentLoss;
  },
  get paused() {
    return paused;
  },
  get fitted() {
    return fitted;
  },
  points: () => points.map((p) => ({ ...p })),
  setPoints(next) {
    if (next.length === 0) throw new Error("setPoints needs at least one point");
    points = next.slice(0, MAX_POINTS).map((p) => ({ x: clamp(p.x, -1, 1), y: clamp(p.y, -1, 1) }));
    lossChanged();
  },
  pointPositions: () => points.map(clientPosition),
  wasmCalls: () => ({ wasm: wasmStats.wasm, javascript: wasmStats.javascript }),
};

requestAnimationFrame(frame);
