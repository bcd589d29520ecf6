import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT, writeProgram } from "./support/harness.js";

// Programs nested deeply or written at length, through the real `nabla check` and `nabla run`
// (child processes): each either compiles and differentiates correctly — the derivative
// checked against a central difference and forward mode against reverse mode — or gets a
// clear diagnostic naming the file and position. Never a signal, a bare stack overflow or a
// stack trace, and `check` and `run` always reach the same verdict.

const BIN = join(REPO_ROOT, "bin/nabla.js");

interface Run {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function nabla(args: string[], cwd: string): Promise<Run> {
  const env: NodeJS.ProcessEnv = { ...process.env, NABLA_CACHE: "0" };
  delete env.NABLA_DEBUG;
  delete env.FORCE_COLOR;
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    // A process still running after a minute is stuck: killed, it fails its test.
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}

/**
 * A module exporting `f(x: number): number` with `body` as its body, which prints f's value,
 * `derivative(f)`, `gradient(f)` and a central difference at `x0`.
 */
function program(body: string, x0: number): string {
  return `import { derivative, gradient } from "nabla";

export function f(x: number): number {
${body}
}

const x0 = ${x0};
const h = 1e-5 * Math.max(1, Math.abs(x0));
const g = gradient(f)(x0);
console.log(
  JSON.stringify({
    value: f(x0),
    forward: derivative(f)(x0),
    reverse: Array.isArray(g) ? g[0] : g,
    difference: (f(x0 + h) - f(x0 - h)) / (2 * h),
  }),
);
`;
}

interface Case {
  name: string;
  source: string;
  /** The expected derivative at x0, or a pattern of the diagnostic. */
  expect: { derivative: number } | { diagnostic: RegExp };
}

const terms = (n: number, term: (i: number) => string) =>
  Array.from({ length: n }, (_, i) => term(i));

function elseIfChain(n: number): string {
  const lines = ["  let r = 0;"];
  for (let i = 0; i < n; i++) {
    lines.push(`  ${i > 0 ? "} else " : ""}if (x < ${((i + 1) / n).toFixed(6)}) {`);
    lines.push(`    r = x * ${i + 1};`);
  }
  lines.push("  } else {", "    r = x * x;", "  }", "  return r;");
  return lines.join("\n");
}

const CASES: Case[] = [
  {
    name: "1,000-deep parentheses",
    source: program(`  return ${"(".repeat(1000)}x${")".repeat(1000)} * x;`, 0.7),
    expect: { derivative: 1.4 },
  },
  {
    // Killed `nabla run` with SIGSEGV: the native parser overflowed the loader thread's stack.
    name: "5,000-deep parentheses",
    source: program(`  return ${"(".repeat(5000)}x${")".repeat(5000)} * x;`, 0.7),
    expect: { derivative: 1.4 },
  },
  {
    // Overflowed the native parser on any thread: past the nesting the parser is given.
    name: "100,000-deep parentheses",
    source: program(`  return ${"(".repeat(100_000)}x${")".repeat(100_000)} * x;`, 0.7),
    expect: {
      diagnostic: /main\.ts:4:\d+: error NABLA001: this code is nested too deeply to parse/,
    },
  },
  {
    name: "x * (x * …) 1,000 deep",
    source: program(`  return ${"(x * ".repeat(1000)}x${")".repeat(1000)};`, 1.0002),
    expect: { derivative: 1001 * 1.0002 ** 1000 },
  },
  {
    // SIGSEGV in `check` and `run`; past what V8 can load even without nabla.
    name: "x * (x * …) 5,000 deep",
    source: program(`  return ${"(x * ".repeat(5000)}x${")".repeat(5000)};`, 1.0002),
    expect: {
      diagnostic:
        /main\.ts:4:\d+: error NABLA001: this code is nested too deeply for JavaScript engines to load/,
    },
  },
  {
    // SIGSEGV under `run`, a bare stack overflow under `check`.
    name: "Array<…> nested 3,000 deep",
    source: program(
      `  const a: ${"Array<".repeat(3000)}number${">".repeat(3000)} = [];\n  return x * x + a.length;`,
      0.7,
    ),
    expect: { derivative: 1.4 },
  },
  {
    // "Maximum call stack size exceeded" without a location.
    name: "a sum of 4,000 terms",
    source: program(`  return ${terms(4000, (i) => `${(i % 7) + 1} * x`).join(" + ")};`, 0.3),
    expect: {
      derivative: terms(4000, (i) => String((i % 7) + 1)).reduce((s, c) => s + Number(c), 0),
    },
  },
  {
    // NABLA900 from `check`, while `run` went through.
    name: "an else-if chain of 800",
    source: program(elseIfChain(800), 0.5004),
    // The first branch taken is x < 401/800: r = x · 401.
    expect: { derivative: 401 },
  },
];

// Each case runs `check` and `run` at once (two child processes), one case after another:
// all sixteen at once took more than the minute each is given on a busy two-core machine, and
// were killed by the timeout rather than by what they test.
for (const c of CASES) {
  test(`hostile input: ${c.name}`, async () => {
    const dir = writeProgram({ "main.ts": c.source });
    const [check, run] = await Promise.all([
      nabla(["check", "main.ts"], dir),
      nabla(["run", "main.ts"], dir),
    ]);
    for (const [command, r] of [
      ["check", check],
      ["run", run],
    ] as const) {
      assert.equal(r.signal, null, `'${command}' was killed by ${r.signal}`);
      assert.doesNotMatch(r.stderr, /Maximum call stack|RangeError|\n\s+at /, command);
    }
    if ("diagnostic" in c.expect) {
      for (const r of [check, run]) {
        assert.equal(r.status, 1, r.stderr);
        assert.match(r.stderr, c.expect.diagnostic);
      }
      assert.equal(run.stderr, check.stderr, "check and run report alike");
      return;
    }
    assert.equal(check.status, 0, `check: ${check.stderr}`);
    assert.equal(run.status, 0, `run: ${run.stderr}`);
    const out = JSON.parse(run.stdout) as Record<string, number>;
    const expected = c.expect.derivative;
    const close = (a: number, b: number, tol: number) =>
      Math.abs(a - b) <= tol * Math.max(1, Math.abs(b));
    assert.ok(close(out.forward!, expected, 1e-9), `forward ${out.forward} ≠ ${expected}`);
    assert.ok(close(out.reverse!, out.forward!, 1e-9), `reverse ${out.reverse} ≠ forward`);
    // The step's error grows with the third derivative (x¹⁰⁰¹ has a large one).
    assert.ok(
      close(out.difference!, out.forward!, 1e-4),
      `difference ${out.difference} ≠ forward ${out.forward}`,
    );
  });
}
