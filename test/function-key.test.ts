import { test } from "node:test";
import assert from "node:assert/strict";
import { keyFile, keyName } from "../src/compiler/ir/function-key.js";

// Function keys (`<file>#<name>`) split back into file and name, with `#` in the path, in the
// file name, and in the name (the keys of the function values a specialization is made for).

const cases: [key: string, file: string, name: string][] = [
  ["/p/main.ts#f", "/p/main.ts", "f"],
  ["/p/main.ts#f@jvp(0,1)[2]", "/p/main.ts", "f@jvp(0,1)[2]"],
  ["/p/c#/main.ts#f", "/p/c#/main.ts", "f"],
  ["/p/x.ts#y/main.ts#f", "/p/x.ts#y/main.ts", "f"],
  ["/p/a#1.ts#Point.norm", "/p/a#1.ts", "Point.norm"],
  ["/p/m.ts#integrate{f=/p/m.ts#lambda_1_3}", "/p/m.ts", "integrate{f=/p/m.ts#lambda_1_3}"],
  [
    "/c#/a#1.mts#run{g=/c#/b#2.ts#h{k=/c#/a#1.mts#lambda_4_5}}@grad(0)",
    "/c#/a#1.mts",
    "run{g=/c#/b#2.ts#h{k=/c#/a#1.mts#lambda_4_5}}@grad(0)",
  ],
  ["/a{b}/m.js#f", "/a{b}/m.js", "f"],
  ["package:@scope/special#besselJ0", "package:@scope/special", "besselJ0"],
];

for (const [key, file, name] of cases) {
  test(`function key ${key}`, () => {
    assert.equal(keyFile(key), file);
    assert.equal(keyName(key), name);
  });
}
