import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ModuleOutput } from "../compiler/emit/js/module.js";
import { pathKind, type PathKind } from "../compiler/parse/program.js";
import { cacheDirectory, prepareCacheDirectory } from "./cache-directory.js";
import { ENTRY_FORMAT, isEntry, type Entry } from "./cache-entry.js";

// The loader's disk cache. An entry is found by the program's entry file and nabla's identity
// (its version, the hash of its compiler and runtime code, the options of the compile), and
// is reused only when its content key still holds: every file the compile read has the same
// content hash, and every path module resolution looked at (including those where nothing
// was) is still what it was. A changed file, a file appearing where an import would now find
// it, or another build of nabla compiles again.

export interface CachedProgram {
  outputs: Map<string, ModuleOutput>;
  warnings: string;
}

/** What a compile depended on besides its inputs: the files the cache must re-hash. */
export interface CompileFacts {
  inputs: Map<string, string>;
  probes: Map<string, PathKind>;
}

const hash = (text: string | Buffer) => createHash("sha256").update(text).digest("hex");

/** The sorted pairs of a record, so equal contents hash equally. */
const sorted = (record: Record<string, string>) =>
  Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/** This build of nabla: its version and the hash of its compiler's and runtime's code. */
function nablaIdentity(): string {
  const digest = createHash("sha256");
  const pkg = new URL("../../../package.json", import.meta.url);
  try {
    digest.update(readFileSync(pkg));
  } catch {
    // Only the code below then tells builds apart.
  }
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".js")) digest.update(entry.name).update(readFileSync(path));
    }
  };
  for (const part of ["../compiler/", "../runtime/"])
    walk(fileURLToPath(new URL(part, import.meta.url)));
  return digest.digest("hex");
}

let identity: string | undefined;
let warned = false;

/**
 * The disk cache for a program whose entry is `entry`, or undefined when there is no safe
 * place for one (a warning says why, once per process). `options` are the compile's options:
 * an entry stored under other options is not reused.
 */
export function openDiskCache(
  entry: string,
  options: Record<string, unknown>,
): DiskCache | undefined {
  const dir = cacheDirectory(entry);
  if (!dir) return undefined;
  const check = prepareCacheDirectory(dir);
  if (!check.usable) {
    if (check.warning && !warned) process.stderr.write(check.warning + "\n");
    warned = true;
    return undefined;
  }
  return new DiskCache(dir, options);
}

export class DiskCache {
  private readonly identity: string;

  /**
   * `dir` must be private to the user (see cache-directory.ts). `tempName` makes the name of
   * a file being written; random, so no one can place anything at it beforehand.
   */
  constructor(
    private readonly dir: string,
    options: Record<string, unknown>,
    private readonly tempName = () => randomBytes(12).toString("hex"),
  ) {
    identity ??= nablaIdentity();
    this.identity = hash(JSON.stringify([identity, options]));
  }

  /** The file of `entry`'s program: found by the entry and nabla's identity and options. */
  fileOf(entry: string): string {
    return join(this.dir, `${hash(JSON.stringify([this.identity, entry]))}.json`);
  }

  /** The content key of a compile: nabla's identity and options, its inputs' hashes, its probes. */
  private contentKey(inputs: Record<string, string>, probes: Record<string, string>): string {
    return hash(JSON.stringify([ENTRY_FORMAT, this.identity, sorted(inputs), sorted(probes)]));
  }

  /** The stored program of this entry, if everything it depended on is still the same. */
  lookup(entry: string): CachedProgram | undefined {
    let stored: unknown;
    try {
      stored = JSON.parse(readFileSync(this.fileOf(entry), "utf8"));
    } catch {
      // Missing, unreadable or not JSON: no entry (the next store replaces it).
      return undefined;
    }
    if (!isEntry(stored, entry)) return undefined;
    if (stored.key !== this.contentKey(stored.inputs, stored.probes)) return undefined;
    for (const [path, kind] of Object.entries(stored.probes))
      if (pathKind(path) !== kind) return undefined;
    for (const [file, digest] of Object.entries(stored.inputs)) {
      try {
        if (hash(readFileSync(file, "utf8")) !== digest) return undefined;
      } catch {
        return undefined;
      }
    }
    const outputs = new Map<string, ModuleOutput>();
    for (const [file, { code, map }] of Object.entries(stored.outputs))
      outputs.set(file, { file, code, map });
    return { outputs, warnings: stored.warnings };
  }

  /** Stores a program; a cache that cannot be written is skipped, never an error. */
  store(
    entry: string,
    facts: CompileFacts,
    outputs: Map<string, ModuleOutput>,
    warnings: string,
  ): void {
    const inputs = Object.fromEntries([...facts.inputs].map(([file, text]) => [file, hash(text)]));
    if (!Object.hasOwn(inputs, entry)) return;
    const probes = Object.fromEntries(facts.probes);
    const stored: Entry = {
      format: ENTRY_FORMAT,
      key: this.contentKey(inputs, probes),
      entry,
      inputs,
      probes,
      outputs: Object.fromEntries(
        [...outputs].map(([file, o]) => [file, { code: o.code, map: o.map }]),
      ),
      warnings,
    };
    const target = this.fileOf(entry);
    // Written aside and renamed, so a concurrent start never reads half an entry. The file is
    // created new (`wx`): never opened through a link or a file someone put there.
    const temporary = `${target}.${this.tempName()}.tmp`;
    let created = false;
    try {
      const fd = openSync(temporary, "wx", 0o600);
      created = true;
      try {
        writeFileSync(fd, JSON.stringify(stored));
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, target);
      created = false;
    } catch {
      // A read-only project or a full disk only costs the next start a compile.
    } finally {
      if (created) {
        try {
          unlinkSync(temporary);
        } catch {
          // Already gone.
        }
      }
    }
  }
}
