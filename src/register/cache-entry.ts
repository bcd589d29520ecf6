import { isAbsolute } from "node:path";
import type { ModuleOutput } from "../compiler/emit/js/module.js";
import type { PathKind } from "../compiler/parse/program.js";

// One entry of the loader's disk cache, as stored, and the check that a file read back is
// one: anything else (null, garbage, half a file, another shape) is treated as no entry.

export const ENTRY_FORMAT = 2;

/** What is stored for one program. */
export interface Entry {
  format: typeof ENTRY_FORMAT;
  /** The content key: the hash of nabla's identity and options, the inputs and the probes. */
  key: string;
  /** The program's entry file. */
  entry: string;
  /** Content hash of every file the compile read, the entry among them. */
  inputs: Record<string, string>;
  /** Every path module resolution looked at, with what was there. */
  probes: Record<string, PathKind>;
  outputs: Record<string, { code: string; map: ModuleOutput["map"] }>;
  /** Warnings the compile printed, printed again when the entry is reused. */
  warnings: string;
}

const HASH = /^[0-9a-f]{64}$/;
const KINDS: ReadonlySet<unknown> = new Set<PathKind>(["file", "other", "none"]);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Whether `value`, parsed from a cache file, is a well-formed entry for `entry`: its inputs
 * include the entry itself (so an entry never holds code no file vouches for), every hash is
 * a hash, and every output belongs to one of its inputs.
 */
export function isEntry(value: unknown, entry: string): value is Entry {
  if (!isRecord(value)) return false;
  const { format, key, inputs, probes, outputs, warnings } = value;
  if (format !== ENTRY_FORMAT || typeof key !== "string" || !HASH.test(key)) return false;
  if (value.entry !== entry || typeof warnings !== "string") return false;
  if (!isRecord(inputs) || !isRecord(probes) || !isRecord(outputs)) return false;
  if (!Object.hasOwn(inputs, entry)) return false;
  for (const [file, digest] of Object.entries(inputs))
    if (!isAbsolute(file) || typeof digest !== "string" || !HASH.test(digest)) return false;
  for (const [path, kind] of Object.entries(probes))
    if (!isAbsolute(path) || !KINDS.has(kind)) return false;
  for (const [file, output] of Object.entries(outputs)) {
    if (!Object.hasOwn(inputs, file) || !isRecord(output)) return false;
    if (typeof output.code !== "string" || !isRecord(output.map)) return false;
  }
  return true;
}
