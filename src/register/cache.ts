import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ModuleOutput } from "../compiler/emit/module.js";

// The loader's disk cache: a compiled program is stored under the hash of its entry file,
// with the hash of the compiler that built it and the content hash of every file the compile
// read. A start whose files all hash the same reuses the outputs without parsing anything; a
// changed file, or another build of nabla, compiles again.

/** What is stored for one program. */
interface Entry {
  compiler: string;
  /** Content hash of every file the compile read. */
  inputs: Record<string, string>;
  outputs: Record<string, { code: string; map: ModuleOutput["map"] }>;
  /** Warnings the compile printed, printed again when the entry is reused. */
  warnings: string;
}

export interface CachedProgram {
  outputs: Map<string, ModuleOutput>;
  warnings: string;
}

const hash = (text: string) => createHash("sha256").update(text).digest("hex");

/** Identifies this build of the compiler: the hash of its code. */
function compilerIdentity(): string {
  const root = fileURLToPath(new URL("../compiler/", import.meta.url));
  const digest = createHash("sha256");
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name.localeCompare(b.name),
    )) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".js")) digest.update(entry.name).update(readFileSync(path));
    }
  };
  walk(root);
  return digest.digest("hex");
}

/**
 * The cache folder: `NABLA_CACHE_DIR`, else `node_modules/.cache/nabla` of the package the
 * entry belongs to (the convention of build tools), else one in the system's temp folder.
 */
export function cacheDirectory(entry: string): string {
  if (process.env.NABLA_CACHE_DIR) return process.env.NABLA_CACHE_DIR;
  for (let dir = dirname(entry); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return join(dir, "node_modules/.cache/nabla");
    if (dirname(dir) === dir) return join(tmpdir(), "nabla-cache");
  }
}

export class DiskCache {
  private compiler: string | undefined;

  constructor(private readonly dir: string) {}

  private identity(): string {
    return (this.compiler ??= compilerIdentity());
  }

  private fileOf(entry: string): string {
    return join(this.dir, `${hash(entry)}.json`);
  }

  /** The stored program of this entry, if every file it read still has the same content. */
  lookup(entry: string): CachedProgram | undefined {
    let stored: Entry;
    try {
      stored = JSON.parse(readFileSync(this.fileOf(entry), "utf8")) as Entry;
    } catch {
      return undefined;
    }
    if (stored.compiler !== this.identity()) return undefined;
    for (const [file, digest] of Object.entries(stored.inputs)) {
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch {
        return undefined;
      }
      if (hash(text) !== digest) return undefined;
    }
    const outputs = new Map<string, ModuleOutput>();
    for (const [file, { code, map }] of Object.entries(stored.outputs))
      outputs.set(file, { file, code, map });
    return { outputs, warnings: stored.warnings };
  }

  /** Stores a program; a cache that cannot be written is skipped, never an error. */
  store(
    entry: string,
    inputs: Map<string, string>,
    outputs: Map<string, ModuleOutput>,
    warnings: string,
  ): void {
    const stored: Entry = {
      compiler: this.identity(),
      inputs: Object.fromEntries([...inputs].map(([file, text]) => [file, hash(text)])),
      outputs: Object.fromEntries(
        [...outputs].map(([file, o]) => [file, { code: o.code, map: o.map }]),
      ),
      warnings,
    };
    const target = this.fileOf(entry);
    try {
      mkdirSync(this.dir, { recursive: true });
      // Written aside and renamed, so a concurrent start never reads half an entry.
      const temporary = `${target}.${process.pid}.tmp`;
      writeFileSync(temporary, JSON.stringify(stored));
      renameSync(temporary, target);
    } catch {
      // A read-only project or a full disk only costs the next start a compile.
    }
  }
}
