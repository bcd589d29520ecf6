#!/usr/bin/env node
// Entry point of the `nabla` command. Compiler bugs are reported briefly; set NABLA_DEBUG=1
// for the stack trace.
import { existsSync } from "node:fs";

const main = new URL("../dist/src/cli/main.js", import.meta.url);
if (!existsSync(main)) {
  process.stderr.write(
    "nabla: the compiler is not built yet; run 'npm run build' in the nabla folder\n",
  );
  process.exit(1);
}
try {
  const { main: run } = await import(main.href);
  const code = await run(process.argv.slice(2));
  if (code !== 0) process.exitCode = code;
} catch (error) {
  if (process.env.NABLA_DEBUG) throw error;
  const packages = new URL("../dist/src/runtime/compiler-packages.js", import.meta.url);
  const { missingCompilerPackage, missingCompilerAdvice } = await import(packages.href);
  const missing = missingCompilerPackage(error);
  const message = missing
    ? `${missingCompilerAdvice(missing)}.`
    : error instanceof Error
      ? error.message
      : String(error);
  process.stderr.write(`nabla: ${message}\n(set NABLA_DEBUG=1 for details)\n`);
  process.exitCode = 1;
}
