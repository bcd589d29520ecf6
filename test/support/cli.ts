import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { REPO_ROOT, writeProgram } from "./harness.js";

// The real `nabla` command, run as a child process (test/cli*.test.ts).

export const BIN = join(REPO_ROOT, "bin/nabla.js");

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** The loader's cache folder for programs outside a package: one of the tests' own. */
export const CACHE_HOME = writeProgram({});

/** The environment `nabla` runs in: the tests' cache, no debugging or colours. */
export function nablaEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: CACHE_HOME };
  delete env.NABLA_DEBUG;
  delete env.FORCE_COLOR;
  delete env.NABLA_CACHE_DIR;
  return env;
}

/** Runs `nabla args…` in `cwd`. */
export function nabla(args: string[], cwd: string = REPO_ROOT): Run {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    env: nablaEnv(),
    encoding: "utf8",
    timeout: 15_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The first line of the usage text. */
export const USAGE_LINE = /^Usage:\n {2}nabla run <file\.ts> \[args…\]/m;
