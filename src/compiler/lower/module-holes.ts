import { basename } from "node:path";
import type { AssignmentExpression, Node } from "oxc-parser";
import { positionAt } from "../diagnostics/format.js";
import { Builder } from "../ir/builder.js";
import { holeShape } from "../ir/hole-shapes.js";
import type { Op, Region } from "../ir/types.js";
import { walk, type SourceModule } from "../parse/module.js";
import type { LowerContext } from "./context.js";

// Holes in module-level arrays. Code outside differentiated functions (the module's own
// statements, a setup function) may write a module-level array past its end, and
// differentiated code reads the array directly, as a global: the array methods there would
// read its holes as undefined. So a function reading a module-level array the module writes
// by index (`data[k] = v`, `data.length = n`, `grid[r][c] = v`) looks it through for holes
// as it starts (the runtime's refuseHoles). Arrays the module only builds with literals,
// push or map need nothing.

/** The module-level names of `module` it writes by index or length, anywhere in the file. */
const written = new WeakMap<SourceModule, Set<string>>();

function writtenByIndex(module: SourceModule): Set<string> {
  let names = written.get(module);
  if (names) return names;
  names = new Set();
  const found = names;
  walk(module.program as unknown as Node, (n) => {
    if (n.type !== "AssignmentExpression") return;
    let target = (n as AssignmentExpression).left as Node;
    let byIndex = false;
    while (target.type === "MemberExpression") {
      const member = target as Node & { computed: boolean; property: Node; object: Node };
      if (
        member.computed ||
        (member.property.type === "Identifier" &&
          (member.property as { name: string }).name === "length")
      )
        byIndex = true;
      target = member.object;
    }
    if (byIndex && target.type === "Identifier") found.add((target as { name: string }).name);
  });
  written.set(module, names);
  return names;
}

/** Adds the checks to `body`, the lowered function `name`, of the module arrays it reads. */
export function checkModuleArrays(ctx: LowerContext, body: Region, name: string): void {
  const names = writtenByIndex(ctx.module);
  if (names.size === 0) return;
  const reads = new Map<string, Op>();
  const visit = (region: Region) => {
    for (const op of region.ops) {
      const global = op.opcode === "global" ? op.attrs.callee : undefined;
      if (global && names.has(global) && !reads.has(global) && ctx.module.constants.has(global))
        if (holeShape(op.results[0]!.type) !== undefined) reads.set(global, op);
      op.regions.forEach(visit);
    }
  };
  visit(body);
  if (reads.size === 0) return;
  const b = new Builder(ctx.builder.values, body, ctx.builder.loc);
  const checks: Region = { params: [], ops: [] };
  for (const [global, read] of reads) {
    const declared = ctx.module.constants.get(global)!.node;
    const { line, column } = positionAt(ctx.module.text, declared.start);
    const where = `${basename(ctx.module.file)}:${line}:${column}`;
    b.loc = read.loc;
    b.inRegion(checks, () => {
      const type = read.results[0]!.type;
      const value = b.emit("global", [], [type], { callee: global }, [], global).results[0]!;
      b.emit(
        "extern",
        [
          value,
          b.constant(global),
          b.constant(JSON.stringify(holeShape(type))),
          b.constant(
            `nabla: the module-level array '${global}' (${where}), which '${name}' reads, has a hole at `,
          ),
          b.constant(
            ` (an element never written); JavaScript's array methods skip holes and reading one ` +
              `gives undefined, nabla's derivative code does neither. Write every element, e.g. ` +
              `with push or fill.`,
          ),
        ],
        ["void"],
        { callee: "nabla:refuseHoles" },
      );
    });
  }
  body.ops.unshift(...checks.ops);
}
