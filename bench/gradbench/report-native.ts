// The report's comparisons with native code (issue 22): GradBench's hand-written C++ tool built
// on this machine (--gradbench-repo) and nabla's WebAssembly backend (unless --no-wasm) — a
// summary table, a table per eval and the lines that say what was checked and which backend
// each operator call used. Pure functions of the results, like ./report.ts.

import { table } from "../markdown.js";
import { TARGET_VS_CPP } from "./evals.js";
import {
  DASH,
  formatRatio,
  medianOf,
  ms,
  ratioCell,
  timeCell,
  usableMs,
  verdict,
} from "./report-format.js";
import type { EvalResult, RunInfo, WorkloadResult } from "./results.js";

export interface NativeSummary {
  name: string;
  /** The backend nabla's derivative used with --backend wasm, from the run-time counts. */
  backend: string;
  /** Medians over the workloads (undefined when nothing was timed). */
  cppVsCppPrimal?: number;
  nablaVsCpp?: number;
  wasmVsCpp?: number;
  wasmVsJs?: number;
  primalVsCppPrimal?: number;
  /** nabla ÷ C++ ≤ TARGET_VS_CPP? ("met", "missed (…)", or why there is no verdict). */
  cppVerdict: string;
  wasmCppVerdict: string;
  /** The wasm backend's outputs equal the JS backend's within 1e-12 relative on every workload. */
  identical: string;
}

const ratio = (a: number | undefined, b: number | undefined) =>
  a === undefined || b === undefined ? undefined : a / b;

/**
 * What nabla's derivative ran with the wasm backend, over the workloads: "wasm" (its calls of
 * wasm twins all ran in wasm; with how many per call), "JS" (it calls none), or the fallbacks.
 */
export function backendUsed(e: EvalResult, fn: string): string {
  if (e.wasm === undefined) return DASH;
  if (e.wasm.error !== undefined) return "does not load";
  const counts = e.workloads.flatMap((w) => (w.wasmCalls?.[fn] ? [w.wasmCalls[fn]] : []));
  if (counts.length === 0) return DASH;
  const wasm = counts.reduce((n, c) => n + c.wasm, 0);
  const javascript = counts.reduce((n, c) => n + c.javascript, 0);
  if (wasm === 0 && javascript === 0) return "JS";
  if (javascript === 0) {
    const perCall = [...new Set(counts.map((c) => c.wasm))];
    const inPlace = counts.reduce((n, c) => n + c.inPlace, 0);
    const inputs =
      inPlace === 0
        ? ""
        : inPlace === wasm
          ? ", inputs in place"
          : `, ${inPlace} of ${wasm} calls read inputs in place`;
    return perCall.length === 1 && perCall[0] === 1
      ? `wasm${inputs}`
      : `wasm (${perCall.length === 1 ? perCall[0] : `${Math.min(...perCall)}–${Math.max(...perCall)}`} calls per call${inputs})`;
  }
  return wasm === 0
    ? "JS (wasm fell back)"
    : `wasm, ${javascript} of ${wasm + javascript} calls fell back to JS`;
}

export function summarizeNative(e: EvalResult): NativeSummary {
  const { spec } = e;
  const fn = spec.derivatives[0]!;
  const per = (f: (w: WorkloadResult) => number | undefined) => medianOf(e.workloads.map(f));
  const cppPrimal = (w: WorkloadResult) => usableMs(w.cpp?.primal);
  const cpp = (w: WorkloadResult) => usableMs(w.cpp?.derivative);
  const nabla = (w: WorkloadResult) => ms(w.nabla[fn]);
  const wasm = (w: WorkloadResult) => ms(w.wasm?.[fn]);
  const s: NativeSummary = {
    name: spec.name,
    backend: backendUsed(e, fn),
    cppVsCppPrimal: per((w) => ratio(cpp(w), cppPrimal(w))),
    nablaVsCpp: per((w) => ratio(nabla(w), cpp(w))),
    wasmVsCpp: per((w) => ratio(wasm(w), cpp(w))),
    wasmVsJs: per((w) => ratio(wasm(w), nabla(w))),
    primalVsCppPrimal: per((w) => ratio(ms(w.primal), cppPrimal(w))),
    cppVerdict: DASH,
    wasmCppVerdict: DASH,
    identical: DASH,
  };
  const against = (v: number | undefined) =>
    v === undefined ? DASH : spec.cppAside !== undefined ? "aside" : verdict(v, TARGET_VS_CPP);
  s.cppVerdict = e.cppSkipped !== undefined ? "no C++" : against(s.nablaVsCpp);
  s.wasmCppVerdict = e.cppSkipped !== undefined ? "no C++" : against(s.wasmVsCpp);
  const checked = e.workloads.filter((w) => w.checks.wasmIdentical !== undefined);
  if (checked.length > 0) {
    const worst = Math.max(...checked.map((w) => w.checks.wasmDifference ?? 0));
    const all = checked.every((w) => w.checks.wasmIdentical);
    s.identical = `${all ? "yes" : "NO"} (${worst === 0 ? "bit for bit" : `≤ ${worst.toExponential(1)}`})`;
  }
  return s;
}

/** Which of the native columns the run has: C++ (asked for and built), wasm (not --no-wasm). */
function columns(evals: EvalResult[], info: RunInfo): { cpp: boolean; wasm: boolean } {
  return {
    cpp: info.cpp?.ok === true && evals.some((e) => e.workloads.some((w) => w.cpp !== null)),
    wasm: info.wasm,
  };
}

/** The summary table against C++ and of the wasm backend; "" when neither ran. */
export function nativeSummaryTable(evals: EvalResult[], info: RunInfo): string {
  const has = columns(evals, info);
  if (!has.cpp && !has.wasm) return "";
  const r = (v: number | undefined) => (v === undefined ? DASH : formatRatio(v));
  const withPrimal = evals.filter((e) => e.spec.primal !== null && e.compileError === undefined);
  const rows = withPrimal.map((e) => {
    const s = summarizeNative(e);
    return [
      e.spec.name,
      ...(has.wasm ? [s.backend] : []),
      ...(has.cpp
        ? [r(s.cppVsCppPrimal), r(s.primalVsCppPrimal), r(s.nablaVsCpp), s.cppVerdict]
        : []),
      ...(has.wasm ? [r(s.wasmVsJs)] : []),
      ...(has.wasm && has.cpp ? [r(s.wasmVsCpp), s.wasmCppVerdict] : []),
      ...(has.wasm ? [s.identical] : []),
    ];
  });
  const header = [
    "eval",
    ...(has.wasm ? ["wasm backend used"] : []),
    ...(has.cpp
      ? [
          "C++ ÷ C++ primal",
          "nabla primal ÷ C++ primal",
          "nabla ÷ C++",
          `nabla ÷ C++ ≤ ${TARGET_VS_CPP}?`,
        ]
      : []),
    ...(has.wasm ? ["nabla-wasm ÷ nabla"] : []),
    ...(has.wasm && has.cpp ? ["nabla-wasm ÷ C++", `nabla-wasm ÷ C++ ≤ ${TARGET_VS_CPP}?`] : []),
    ...(has.wasm ? ["wasm = JS to 1e-12?"] : []),
  ];
  const numeric = new Set(["C++ ÷ C++ primal", "nabla primal ÷ C++ primal", "nabla ÷ C++"]);
  numeric.add("nabla-wasm ÷ nabla").add("nabla-wasm ÷ C++");
  return table(
    header,
    rows,
    header.map((h) => numeric.has(h)),
  );
}

/** The legend under the native summary. */
export function nativeLegend(evals: EvalResult[], info: RunInfo): string {
  const has = columns(evals, info);
  const lines: string[] = [];
  if (info.cpp !== null) {
    lines.push(
      info.cpp.ok
        ? `GradBench's hand-written C++ tool: ${info.cpp.text}.`
        : `GradBench's hand-written C++ tool was asked for but does not run: ${info.cpp.text}.`,
    );
  } else {
    lines.push(
      "GradBench's hand-written C++ tool was not run (`--gradbench-repo DIR` or `$GRADBENCH_REPO` runs it).",
    );
  }
  if (has.cpp) {
    lines.push(
      `- **C++ ÷ C++ primal**: GradBench's manual C++ derivative ÷ its primal, built and run here
  (\`bin/<eval> input.json <function>\`, its own per-call timer; the median over its runs);
  **nabla primal ÷ C++ primal**: nabla's primal (the user's JavaScript) ÷ the C++ one; **nabla ÷
  C++**: nabla's derivative (JS backend) ÷ the C++ derivative; the target (issue 22) is ≤
  ${TARGET_VS_CPP}× on every eval, ode aside ("aside": ${evals.find((e) => e.spec.cppAside)?.spec.cppAside ?? "its manual derivative exploits the problem's structure"}).
  A C++ output that fails GradBench's check (✗), or a call under 1 µs, too short for its
  per-call clock (⚠), is shown but enters no ratio.`,
    );
  }
  if (has.wasm) {
    lines.push(
      `- **wasm backend used**: what nabla's derivative ran when gradbench/evals/<eval>.ts is compiled
  with backend "wasm" (as \`nabla run --backend wasm\`), counted at run time: "wasm" when its
  calls of WebAssembly twins ran in wasm (how many per call if not one; "inputs in place"
  when they read the eval's prepared inputs where they are: the wasm module's inputs are put
  in a \`wasmArrays\` memory after \`prepare<Fn>\`, as a user keeping data in wasm memory
  across calls would, so only what a call writes is copied), "JS" when it calls none
  (the per-eval notes give the compiler's reasons). **nabla-wasm ÷ nabla**: that module's
  derivative ÷ the JS backend's, timed side by side with it${has.cpp ? "; **nabla-wasm ÷ C++**: against the C++ derivative" : ""};
  **wasm = JS to 1e-12?**: its outputs against the JS backend's, the largest relative difference.`,
    );
  } else {
    lines.push("nabla's WebAssembly backend was not run (`--no-wasm`).");
  }
  return lines.join("\n\n");
}

/** The per-workload table of one eval against C++ and of its wasm backend; "" when neither. */
export function nativeWorkloadTable(e: EvalResult): string {
  const { spec } = e;
  const hasCpp = e.workloads.some((w) => w.cpp !== null);
  const hasWasm = e.workloads.some((w) => w.wasm !== null);
  if (!hasCpp && !hasWasm) return "";
  if (spec.primal === null) {
    if (!hasWasm) return "";
    return table(
      ["workload", ...spec.derivatives.flatMap((fn) => [`nabla-wasm ${fn}`, "÷ nabla"])],
      e.workloads.map((w) => [
        w.name,
        ...spec.derivatives.flatMap((fn) => [
          timeCell(w.wasm?.[fn]),
          ratioCell(ms(w.wasm?.[fn]), ms(w.nabla[fn])),
        ]),
      ]),
      [false, ...spec.derivatives.flatMap(() => [true, true])],
    );
  }
  const fn = spec.derivatives[0]!;
  const header = [
    "workload",
    ...(hasCpp ? ["C++ primal", `C++ ${fn}`, "nabla ÷ C++", "nabla primal ÷ C++ primal"] : []),
    ...(hasWasm ? [`nabla-wasm ${fn}`, "nabla-wasm ÷ nabla"] : []),
    ...(hasWasm && hasCpp ? ["nabla-wasm ÷ C++"] : []),
  ];
  const rows = e.workloads.map((w) => {
    const cpp = usableMs(w.cpp?.derivative);
    const wasm = ms(w.wasm?.[fn]);
    return [
      w.name,
      ...(hasCpp
        ? [
            timeCell(w.cpp?.primal),
            timeCell(w.cpp?.derivative),
            ratioCell(ms(w.nabla[fn]), cpp),
            ratioCell(ms(w.primal), usableMs(w.cpp?.primal)),
          ]
        : []),
      ...(hasWasm ? [timeCell(w.wasm?.[fn]), ratioCell(wasm, ms(w.nabla[fn]))] : []),
      ...(hasWasm && hasCpp ? [ratioCell(wasm, cpp)] : []),
    ];
  });
  return table(header, rows, [false, ...header.slice(1).map(() => true)]);
}

/** "all 5 workloads" or "3 of 5 workloads". */
function ofWorkloads(k: number, n: number): string {
  return k === n
    ? `${n === 1 ? "the" : n === 2 ? "both" : `all ${n}`} workload${n === 1 ? "" : "s"}`
    : `${k} of ${n} workloads`;
}

/** The notes of one eval about the wasm backend and the C++ tool. */
export function nativeLines(e: EvalResult): string[] {
  const lines: string[] = [];
  const ws = e.workloads;
  if (e.wasm !== undefined) {
    if (e.wasm.error !== undefined) {
      lines.push(`With the wasm backend the module does not load: ${e.wasm.error.split("\n")[0]}.`);
    } else {
      const sites = e.wasm.sites.map(
        (s) =>
          `\`${s.call}\` at ${s.place}: ${s.backend === "wasm" ? `WebAssembly (${s.detail})` : `JavaScript (${s.detail})`}`,
      );
      if (e.wasm.driver)
        lines.push(
          `The wasm column runs \`${e.wasm.driver}\`: the same functions, with the derivative's driver tagged \`@backend wasm\` so that it runs in wasm too (its inner gradients in reverse mode there).`,
        );
      lines.push(
        sites.length > 0
          ? `With backend "wasm": ${sites.join("; ")}. Operator calls without the backend option stay JavaScript.`
          : `With backend "wasm": no operator call of this module takes the backend option (those that do: gradient, derivative, differential, jacobian, hessian and their value… forms), so it all stays JavaScript.`,
      );
    }
    const referenced = ws.filter((w) => w.checks.wasmReference !== undefined);
    const withReference = referenced.filter((w) => w.checks.referenced.length > 0);
    if (withReference.length > 0) {
      const agree = withReference.filter((w) =>
        e.spec.derivatives.every(
          (fn) => !w.checks.referenced.includes(fn) || w.checks.wasmReference!.includes(fn),
        ),
      ).length;
      lines.push(
        `nabla-wasm's ${e.spec.derivatives.join(", ")} agree${e.spec.derivatives.length === 1 ? "s" : ""} with GradBench's reference on ${ofWorkloads(agree, withReference.length)}.`,
      );
    }
    const compared = ws.filter((w) => w.checks.wasmIdentical !== undefined);
    if (compared.length > 0) {
      const same = compared.filter((w) => w.checks.wasmIdentical).length;
      const worst = Math.max(...compared.map((w) => w.checks.wasmDifference ?? 0));
      lines.push(
        `nabla-wasm's outputs equal the JS backend's within 1e-12 relative on ${ofWorkloads(same, compared.length)} (largest relative difference ${worst === 0 ? "0: identical to the bit" : worst.toExponential(1)}).`,
      );
    }
  }
  if (e.cppSkipped !== undefined) lines.push(`GradBench's C++ tool: ${e.cppSkipped}.`);
  const cpp = ws.filter((w) => w.checks.cppValid !== undefined);
  if (cpp.length > 0) {
    const fns = [e.spec.primal!, e.spec.derivatives[0]!];
    const valid = cpp.filter((w) => w.checks.cppValid!.length === fns.length).length;
    const byNabla = cpp.some((w) => w.checks.cppCheckedAgainst === "nabla");
    lines.push(
      `GradBench's C++ ${fns.join(" and ")} pass GradBench's check against ${byNabla ? "GradBench's reference (or nabla's output for generated inputs)" : "its reference"} on ${ofWorkloads(valid, cpp.length)}.`,
    );
  }
  if (e.spec.cppAside !== undefined && cpp.length > 0) {
    lines.push(`nabla ÷ C++ has no target here: ${e.spec.cppAside}.`);
  }
  return lines;
}
