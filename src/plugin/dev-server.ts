// Keeping a dev server's modules in step with the whole-program compile. Derivatives are
// emitted in the module that defines the function, so compiling one module can change others:
// an edit that adds `derivative(mse)` to main.ts adds `mse$jvp` to lib.ts. A dev server that
// already transformed lib.ts would keep serving the old text (and the page would fail to
// import `mse$jvp`), so after each compile the plugin compares every module it served with
// the compile's output and invalidates those that changed, as if they had been edited.

/** The parts of a Vite module graph used here (Vite's `EnvironmentModuleGraph`). */
interface ModuleGraph {
  getModulesByFile(file: string): Set<unknown> | undefined;
  invalidateModule(module: never, seen?: Set<unknown>, timestamp?: number, isHmr?: boolean): void;
}

/** The parts of Vite's dev server used here. */
export interface DevServer {
  environments?: Record<string, { moduleGraph?: ModuleGraph }>;
  moduleGraph?: ModuleGraph;
}

/** What the plugin served of each module, to find those a later compile changed. */
export class ServedModules {
  private readonly served = new Map<string, string>();
  private server: DevServer | undefined;

  /** The dev server to keep in step (none in a production build: nothing to invalidate). */
  attach(server: DevServer): void {
    this.server = server;
  }

  /** Records that `file` was served as `code`. */
  record(file: string, code: string): void {
    this.served.set(file, code);
  }

  /** Forgets `file` (it changed on disk; the server invalidates it itself). */
  forget(file: string): void {
    this.served.delete(file);
  }

  /**
   * After a compile: every served module whose output `current` gives differently is
   * invalidated with a fresh timestamp, so importers transformed from now on import it anew
   * and the browser fetches the new text. Returns the files invalidated.
   */
  invalidateChanged(current: (file: string) => string | undefined): string[] {
    const changed: string[] = [];
    for (const [file, code] of this.served) {
      if (current(file) === code) continue;
      this.served.delete(file);
      changed.push(file);
    }
    if (!this.server || changed.length === 0) return changed;
    const graphs = this.server.environments
      ? Object.values(this.server.environments).map((e) => e.moduleGraph)
      : [this.server.moduleGraph];
    const timestamp = Date.now();
    for (const graph of graphs) {
      if (!graph) continue;
      for (const file of changed) {
        for (const module of graph.getModulesByFile(file) ?? []) {
          // isHmr: the module gets a new HMR timestamp, which Vite appends (`?t=`) to its
          // URL in every importer transformed after this: the browser cannot reuse its copy.
          graph.invalidateModule(module as never, new Set(), timestamp, true);
        }
      }
    }
    return changed;
  }
}
