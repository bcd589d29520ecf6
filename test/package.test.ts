import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { REPO_ROOT } from "./support/harness.js";

// What `npm pack` would publish, judged as a user installing nabla from the registry sees it.

interface PackedFile {
  path: string;
  size: number;
}

function packedFiles(): string[] {
  // --ignore-scripts: the suite has built dist/ already; prepack would build it again.
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [report] = JSON.parse(out) as { files: PackedFile[] }[];
  return report!.files.map((f) => f.path);
}

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
  exports: Record<string, { types: string; default: string }>;
  bin: Record<string, string>;
};

test("the package holds its license, readme, command and every export, and no tests", () => {
  const files = new Set(packedFiles());
  for (const needed of ["LICENSE", "README.md", "package.json", ...Object.values(manifest.bin)]) {
    assert.ok(files.has(needed.replace(/^\.\//, "")), `${needed} is packed`);
  }
  for (const [name, entry] of Object.entries(manifest.exports)) {
    for (const target of [entry.types, entry.default]) {
      assert.ok(files.has(target.replace(/^\.\//, "")), `export ${name}: ${target} is packed`);
    }
  }
  for (const file of files) {
    assert.ok(!file.startsWith("dist/test/") && !file.startsWith("test/"), `${file} is a test`);
  }
});

test("every packed source map carries its sources and names files the package has", () => {
  const packed = new Set(packedFiles());
  const maps = [...packed].filter((f) => f.endsWith(".map"));
  assert.ok(maps.length > 0);
  for (const file of maps) {
    const map = JSON.parse(readFileSync(join(REPO_ROOT, file), "utf8")) as {
      sources: string[];
      sourcesContent?: (string | null)[];
    };
    assert.equal(map.sourcesContent?.length, map.sources.length, `${file} has sourcesContent`);
    assert.ok(
      map.sourcesContent!.every((s) => typeof s === "string" && s.length > 0),
      `${file} has every source's text`,
    );
    // Stack frames name the sources: they must be files the package has.
    for (const source of map.sources) {
      const path = posix.normalize(posix.join(posix.dirname(file), source));
      assert.ok(packed.has(path), `${file} names ${source}, which is packed`);
    }
  }
});

test("installing the published package runs no script of nabla's: the build is prepack's", () => {
  assert.equal(manifest.scripts.prepare, undefined);
  assert.equal(manifest.scripts.install, undefined);
  assert.equal(manifest.scripts.postinstall, undefined);
  assert.match(manifest.scripts.prepack ?? "", /build/);
});

test("the runtime bundles without a circular import (bundlers warn on every user build)", async () => {
  const { rollup } = await import("rollup");
  const warnings: string[] = [];
  const bundle = await rollup({
    input: join(REPO_ROOT, "dist/src/runtime/index.js"),
    external: (id) => id.startsWith("node:"),
    onwarn: (warning) => void warnings.push(`${warning.code}: ${warning.message}`),
  });
  await bundle.close();
  assert.deepEqual(
    warnings.filter((w) => w.startsWith("CIRCULAR_DEPENDENCY")),
    [],
  );
});
