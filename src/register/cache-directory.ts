import { existsSync, mkdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";

// Where the loader's disk cache lives, and whether it is safe to use. A cache entry is code
// that will run, so the folder must be one only the current user can write: created private
// (0700), and refused when another user owns it or others may write to it. Never a shared
// folder such as the system's temp folder, where another user could plant entries.

/**
 * The cache folder for a program: `NABLA_CACHE_DIR`, else `node_modules/.cache/nabla` of the
 * package the entry belongs to (the convention of build tools), else the user's cache folder
 * (`$XDG_CACHE_HOME/nabla` or `~/.cache/nabla`); undefined when there is none.
 */
export function cacheDirectory(entry: string): string | undefined {
  if (process.env.NABLA_CACHE_DIR) return process.env.NABLA_CACHE_DIR;
  for (let dir = dirname(entry); ; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return join(dir, "node_modules/.cache/nabla");
    if (dirname(dir) === dir) break;
  }
  const xdg = process.env.XDG_CACHE_HOME;
  if (xdg && isAbsolute(xdg)) return join(xdg, "nabla");
  let home: string;
  try {
    home = homedir();
  } catch {
    return undefined;
  }
  return home ? join(home, ".cache", "nabla") : undefined;
}

/** Whether a cache folder can be used; `warning` says why not when the user should know. */
export type DirectoryCheck = { usable: true } | { usable: false; warning?: string };

/**
 * Creates `dir` (private to the user) if it is missing, and checks it is safe to keep code
 * in: a folder owned by the current user that no one else may write to. A folder that cannot
 * be created (a read-only project) is quietly not used; an unsafe one is refused with a reason.
 */
export function prepareCacheDirectory(dir: string): DirectoryCheck {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    return { usable: false };
  }
  const refuse = (why: string): DirectoryCheck => ({
    usable: false,
    warning: `nabla: not using the disk cache in ${dir}: ${why}`,
  });
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (!stat?.isDirectory()) return refuse("it is not a folder");
  const uid = process.getuid?.();
  // Windows has no owners or mode bits to check here; its profile folders are private already.
  if (uid === undefined) return { usable: true };
  if (stat.uid !== uid) return refuse(`it belongs to another user (uid ${stat.uid})`);
  if ((stat.mode & 0o022) !== 0) {
    const mode = (stat.mode & 0o777).toString(8);
    return refuse(`other users may write to it (mode ${mode}); 'chmod 700' it or remove it`);
  }
  return { usable: true };
}
