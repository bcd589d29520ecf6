import { join } from "node:path";
import { build as esbuild } from "esbuild";
import { rollup } from "rollup";
import { build as vite } from "vite";
import webpack from "webpack";
import nabla from "../../src/plugin/index.js";

// Real builds of a TypeScript entry with each bundler and nabla's plugin, as a user would
// configure them: one ES module bundle with a source map, for Node to run.

export const BUNDLERS = ["vite", "rollup", "esbuild", "webpack"] as const;
export type Bundler = (typeof BUNDLERS)[number];

/** Bundles `entry` into `outDir`; returns the path of the bundle (its map is next to it). */
export async function bundle(bundler: Bundler, entry: string, outDir: string): Promise<string> {
  const file = join(outDir, `${bundler}.mjs`);
  switch (bundler) {
    case "vite":
      await vite({
        configFile: false,
        logLevel: "silent",
        plugins: [nabla.vite()],
        build: {
          outDir,
          emptyOutDir: false,
          sourcemap: true,
          minify: true,
          lib: { entry, formats: ["es"], fileName: () => `${bundler}.mjs` },
        },
      });
      break;
    case "rollup": {
      const built = await rollup({ input: entry, plugins: [nabla.rollup()], logLevel: "silent" });
      await built.write({ file, format: "es", sourcemap: true });
      await built.close();
      break;
    }
    case "esbuild":
      await esbuild({
        entryPoints: [entry],
        bundle: true,
        minify: true,
        outfile: file,
        format: "esm",
        platform: "node",
        sourcemap: true,
        logLevel: "silent",
        plugins: [nabla.esbuild()],
      });
      break;
    case "webpack":
      await new Promise<void>((resolve, reject) => {
        webpack(
          {
            mode: "production",
            entry,
            target: "node",
            devtool: "source-map",
            output: { path: outDir, filename: `${bundler}.mjs`, module: true },
            experiments: { outputModule: true },
            plugins: [nabla.webpack()],
          },
          (error, stats) => {
            if (error) reject(error);
            else if (stats?.hasErrors()) reject(new Error(stats.toString("errors-only")));
            else resolve();
          },
        );
      });
      break;
  }
  return file;
}
