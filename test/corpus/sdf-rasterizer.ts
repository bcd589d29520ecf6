// Soft rasterizer: signed-distance shapes turned into anti-aliased pixel coverage, compared against a target image.

export type Shape =
  | { kind: "circle"; cx: number; cy: number; radius: number; opacity?: number }
  | { kind: "box"; cx: number; cy: number; halfW: number; halfH: number; rotation?: number; opacity?: number }
  | { kind: "ring"; cx: number; cy: number; radius: number; thickness: number; opacity?: number };

export function signedDistance(shape: Shape, px: number, py: number): number {
  const dx = px - shape.cx;
  const dy = py - shape.cy;
  switch (shape.kind) {
    case "circle":
      return Math.hypot(dx, dy) - shape.radius;
    case "ring":
      return Math.abs(Math.hypot(dx, dy) - shape.radius) - shape.thickness / 2;
    case "box": {
      const angle = shape.rotation ?? 0;
      const c = Math.cos(angle);
      const s = Math.sin(angle);
      const lx = Math.abs(c * dx + s * dy) - shape.halfW;
      const ly = Math.abs(-s * dx + c * dy) - shape.halfH;
      const outside = Math.hypot(Math.max(lx, 0), Math.max(ly, 0));
      const inside = Math.min(Math.max(lx, ly), 0);
      return outside + inside;
    }
  }
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

export class Canvas {
  readonly pixels: Float64Array;

  constructor(readonly width: number, readonly height: number) {
    this.pixels = new Float64Array(width * height);
  }

  static fromFunction(width: number, height: number, f: (x: number, y: number) => number) {
    const canvas = new Canvas(width, height);
    canvas.forEachPixel((x, y, i) => (canvas.pixels[i] = f(x, y)));
    return canvas;
  }

  forEachPixel(fn: (x: number, y: number, index: number) => void) {
    for (let j = 0; j < this.height; j++) for (let i = 0; i < this.width; i++) fn(i + 0.5, j + 0.5, j * this.width + i);
  }

  // "over" compositing of soft coverage: alpha = 1 - Π(1 - a_k)
  rasterize(shapes: Shape[], softness: number) {
    this.forEachPixel((x, y, index) => {
      const transparency = shapes.reduce((t, shape) => {
        const coverage = sigmoid(-signedDistance(shape, x, y) / softness) * (shape.opacity ?? 1);
        return t * (1 - coverage);
      }, 1);
      this.pixels[index] = 1 - transparency;
    });
    return this;
  }
}

export function objective(shapes: Shape[], target: Canvas, softness = 0.6): number {
  const rendered = new Canvas(target.width, target.height).rasterize(shapes, softness);
  let sse = 0;
  rendered.pixels.forEach((value, i) => (sse += (value - target.pixels[i]) ** 2));
  return sse / rendered.pixels.length;
}

// target: a disc on the left and a tilted bar on the right of a 24×24 image
export const target = Canvas.fromFunction(24, 24, (x, y) => {
  const disc = Math.hypot(x - 7, y - 8) < 4.5 ? 1 : 0;
  const u = (x - 16) * Math.cos(0.4) + (y - 15) * Math.sin(0.4);
  const v = -(x - 16) * Math.sin(0.4) + (y - 15) * Math.cos(0.4);
  const bar = Math.abs(u) < 5 && Math.abs(v) < 1.8 ? 1 : 0;
  return Math.max(disc, bar);
});

export const args: Parameters<typeof objective> = [
  [
    { kind: "circle", cx: 7.3, cy: 8.4, radius: 4.1 },
    { kind: "box", cx: 15.6, cy: 14.7, halfW: 4.6, halfH: 2.1, rotation: 0.33, opacity: 0.95 },
    { kind: "ring", cx: 17.2, cy: 5.3, radius: 2.6, thickness: 0.8, opacity: 0.3 },
  ],
  target,
  0.6,
];
