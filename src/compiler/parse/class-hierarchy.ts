import type { Class, Node } from "oxc-parser";
import { declaredPrivateNames } from "./private-names.js";
import { classMember } from "./class-member.js";
import { staticMethodKeyName } from "../ir/names.js";
import type { SourceModule } from "./module.js";
import type { FunctionSymbol, ProgramGraph } from "./program.js";

// The classes of the program as a hierarchy: a class's base (`extends Base`) and the classes
// that extend it. Types read it to give a base class's instances room for its subclasses'
// fields (an array of `Bond` may hold any bond), and lowering to call the method of an
// instance's run-time class. Subclasses are looked for in every module the program reaches
// by relative imports, so the answer does not depend on which modules were parsed first.

export interface ClassSymbol {
  module: SourceModule;
  name: string;
  decl: Class;
}

/** The class `name` denotes in `mod` (following imports), if it is a class of the program. */
export function classNamed(
  program: ProgramGraph,
  mod: SourceModule,
  name: string,
): ClassSymbol | undefined {
  const found = program.resolveType(mod, name);
  const decl = found?.node;
  if (!found || !decl || (decl.type !== "ClassDeclaration" && decl.type !== "ClassExpression"))
    return undefined;
  return { module: found.module, name: found.name, decl };
}

/** The class `cls` extends, if it extends a class of the program by name. */
export function superclassOf(program: ProgramGraph, cls: ClassSymbol): ClassSymbol | undefined {
  const base = cls.decl.superClass && dottedName(cls.decl.superClass);
  return base ? classNamed(program, cls.module, base) : undefined;
}

/** `Base`, or `geo.Base` / `lib.geo.Base` through namespace imports, as a dotted name. */
export function dottedName(node: Node): string | undefined {
  if (node.type === "Identifier") return node.name;
  if (node.type === "MemberExpression" && !node.computed && node.property.type === "Identifier") {
    const object = dottedName(node.object);
    return object && `${object}.${node.property.name}`;
  }
  if (node.type === "TSQualifiedName") {
    const left = dottedName(node.left);
    return left && `${left}.${node.right.name}`;
  }
  return undefined;
}

/**
 * The first class of `cls`'s chain (itself, then its bases) declared with type parameters, as
 * written (`Box<T>`): nabla types each class once, so such a class has no instance type.
 */
export function genericInAncestry(
  program: ProgramGraph,
  cls: ClassSymbol,
): { written: string; params: string } | undefined {
  const generic = ancestry(program, cls).find((c) => c.decl.typeParameters);
  const params = generic?.decl.typeParameters?.params.map((p) => p.name.name).join(", ");
  return generic && { written: `${generic.name}<${params}>`, params: params! };
}

/** Whether `cls` extends something nabla cannot follow (an expression, a class of a package). */
export function extendsUnknown(program: ProgramGraph, cls: ClassSymbol): boolean {
  return cls.decl.superClass != null && superclassOf(program, cls) === undefined;
}

/** `cls` and its bases, `cls` first. */
export function ancestry(program: ProgramGraph, cls: ClassSymbol): ClassSymbol[] {
  const chain = [cls];
  for (let base = superclassOf(program, cls); base && chain.length < 64;) {
    if (chain.some((c) => c.decl === base!.decl)) break;
    chain.push(base);
    base = superclassOf(program, base);
  }
  return chain;
}

/** Every class that extends `cls`, directly or not, each after its own base. */
export function descendants(program: ProgramGraph, cls: ClassSymbol): ClassSymbol[] {
  loadReachableModules(program);
  const all: ClassSymbol[] = program
    .loadedModules()
    .flatMap((module) =>
      [...module.types.entries()].flatMap(([name, decl]) =>
        decl.type === "ClassDeclaration" || decl.type === "ClassExpression"
          ? [{ module, name, decl }]
          : [],
      ),
    );
  const found: ClassSymbol[] = [];
  const visit = (of: ClassSymbol) => {
    for (const c of all) {
      if (found.some((f) => f.decl === c.decl) || c.decl === cls.decl) continue;
      if (superclassOf(program, c)?.decl === of.decl) {
        found.push(c);
        visit(c);
      }
    }
  };
  visit(cls);
  return found;
}

/**
 * The classes that say they implement the interface `decl` (`class Biquad implements Filter`),
 * and the classes extending them, each after its own base.
 */
export function implementersOf(program: ProgramGraph, decl: Node): ClassSymbol[] {
  loadReachableModules(program);
  const found: ClassSymbol[] = [];
  const methods =
    decl.type === "TSInterfaceDeclaration"
      ? decl.body.body.flatMap((m) =>
          m.type === "TSMethodSignature" && m.key.type === "Identifier" ? [m.key.name] : [],
        )
      : [];
  for (const module of program.loadedModules()) {
    for (const [name, c] of module.types.entries()) {
      if (c.type !== "ClassDeclaration" && c.type !== "ClassExpression") continue;
      // `implements Filter`, or an interface extending it (`implements Solid`, `Solid extends
      // Shape`), or no `implements` clause but every method of it (structural typing).
      const implemented =
        (c.implements ?? []).some((i) => implementsNamed(program, module, i.expression, decl)) ||
        // A class naming the interfaces it (or a base) implements is taken at its word.
        (methods.length > 0 &&
          ancestry(program, { module, name, decl: c }).every(
            (a) => (a.decl.implements ?? []).length === 0,
          ) &&
          methods.every((m) =>
            ancestry(program, { module, name, decl: c }).some((a) =>
              a.decl.body.body.some(
                (member) =>
                  member.type === "MethodDefinition" &&
                  member.kind === "method" &&
                  !member.static &&
                  member.key.type === "Identifier" &&
                  member.key.name === m,
              ),
            ),
          ));
      if (!implemented || found.some((f) => f.decl === c)) continue;
      const cls = { module, name, decl: c };
      found.push(
        cls,
        ...descendants(program, cls).filter((d) => !found.some((f) => f.decl === d.decl)),
      );
    }
  }
  return found;
}

/** Whether the interface `name` (seen from `mod`) is `decl` or extends it. */
function implementsNamed(program: ProgramGraph, mod: SourceModule, name: Node, decl: Node) {
  const written = dottedName(name);
  return written !== undefined && extendsInterface(program, mod, written, decl);
}

function extendsInterface(
  program: ProgramGraph,
  mod: SourceModule,
  name: string,
  decl: Node,
  depth = 0,
): boolean {
  const found = program.resolveType(mod, name);
  if (!found || depth > 16) return false;
  if (found.node === decl) return true;
  if (found.node.type !== "TSInterfaceDeclaration") return false;
  return (found.node.extends ?? []).some((e) => {
    const base = dottedName(e.expression);
    return base !== undefined && extendsInterface(program, found.module, base, decl, depth + 1);
  });
}

/**
 * A `#name` that `cls` declares and a class it extends declares too, with that class: nabla's
 * output turns each class's `#name`s into properties keyed `"#name"` (private-names.ts), and two
 * such properties of one instance would be one. Such a class keeps its private names, and
 * nabla cannot differentiate through it.
 */
export function privateNameClash(
  program: ProgramGraph,
  cls: ClassSymbol,
): { name: string; base: ClassSymbol } | undefined {
  const own = declaredPrivateNames(cls.decl);
  if (own.size === 0) return undefined;
  for (const base of ancestry(program, cls).slice(1)) {
    for (const name of declaredPrivateNames(base.decl)) if (own.has(name)) return { name, base };
  }
  return undefined;
}

/** Whether `cls` is `base` or extends it. */
export function isSubclassOf(program: ProgramGraph, cls: ClassSymbol, base: ClassSymbol): boolean {
  return ancestry(program, cls).some((c) => c.decl === base.decl);
}

/** Parses every module the loaded ones import by relative paths, transitively. */
function loadReachableModules(program: ProgramGraph): void {
  const seen = new Set<string>();
  for (let todo = program.loadedModules(); todo.length > 0;) {
    const next: SourceModule[] = [];
    for (const mod of todo) {
      if (seen.has(mod.file)) continue;
      seen.add(mod.file);
      for (const binding of mod.imports.values()) {
        const imported = program.importedModule(mod, binding.specifier);
        if (imported && !seen.has(imported.file)) next.push(imported);
      }
    }
    todo = next;
  }
}

/**
 * The static method `name` of the class named `className` in `mod`, declared by it or by a
 * base class (`Smooth.softplus` where `Activation`, which `Smooth` extends, declares it), named
 * after the class that declares it (`Activation.static.softplus`): calls and operators given
 * it reach one function.
 */
export function staticMethodSymbol(
  program: ProgramGraph,
  mod: SourceModule,
  className: string,
  name: string,
): FunctionSymbol | undefined {
  const cls = classNamed(program, mod, className);
  for (const owner of cls ? ancestry(program, cls) : []) {
    const node = classMember(owner.decl, name, "static");
    if (node) return { module: owner.module, name: staticMethodKeyName(owner.name, name), node };
  }
  return undefined;
}
