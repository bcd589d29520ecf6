import { functionKey, genericKey, instanceKey } from "../ir/function-key.js";
import { irTypeText, sameType } from "../ir/type-system.js";
import type { ObjectType, Type } from "../ir/types.js";
import type { ClassSymbol } from "../parse/class-hierarchy.js";
import type { ProgramGraph } from "../parse/program.js";

// Instantiations of generic classes (`class RingBuffer<T>`), as generic functions have theirs
// (lower/generic-calls.ts): each list of type arguments a program uses the class with
// (`RingBuffer<number>`, `RingBuffer<Vec>`) is a class of its own to nabla, with its fields'
// types and its methods' code read with the type parameters standing for those arguments.
// Its instances' class key is the class's with the instantiation's name
// (`…#RingBuffer<RingBuffer$of>`), so every phase that finds a class by key still finds
// `RingBuffer` (types are erased: at run time it is the one class), and the instantiation
// gives the type arguments back.

/** One instantiation of a generic class. */
export interface ClassInstantiation {
  cls: ClassSymbol;
  /** The instantiation's name, an identifier (`RingBuffer$of`, `RingBuffer$of$2`). */
  id: string;
  /** `RingBuffer<number>`, how messages name it. */
  text: string;
  /** What each type parameter stands for. */
  typeArguments: ReadonlyMap<string, Type>;
  /** Its instance type: undefined until built, null when nabla cannot type its fields. */
  type?: ObjectType | null;
  /** While its fields are being read: what a field holding the type itself points to. */
  placeholder?: { -readonly [K in keyof ObjectType]: ObjectType[K] };
}

const perProgram = new WeakMap<ProgramGraph, Map<string, ClassInstantiation>>();

function instantiationsOf(program: ProgramGraph): Map<string, ClassInstantiation> {
  let found = perProgram.get(program);
  if (!found) perProgram.set(program, (found = new Map()));
  return found;
}

/** The instantiation of `cls` with `args` (one per type parameter, in order), made once. */
export function classInstantiation(
  program: ProgramGraph,
  cls: ClassSymbol,
  args: readonly Type[],
): { key: string; instantiation: ClassInstantiation } {
  const params = cls.decl.typeParameters?.params.map((p) => p.name.name) ?? [];
  const text = `${cls.name}<${args.map(irTypeText).join(", ")}>`;
  const file = cls.module.file;
  const all = instantiationsOf(program);
  // Two types may be written alike (two modules' `Vec`): the arguments themselves decide.
  for (let n = 1; ; n++) {
    const id = program.generatedName(file, `${file}#${text}#${n}`, `${cls.name}$of`);
    const key = instanceKey(functionKey(file, cls.name), id);
    const known = all.get(key);
    if (!known) {
      const typeArguments = new Map(params.map((p, i) => [p, args[i]!]));
      const instantiation: ClassInstantiation = { cls, id, text, typeArguments };
      all.set(key, instantiation);
      return { key, instantiation };
    }
    if (params.every((p) => sameType(known.typeArguments.get(p)!, args[params.indexOf(p)]!)))
      return { key, instantiation: known };
  }
}

/** The instantiation a class key names (`…#RingBuffer<RingBuffer$of>`), if it names one. */
export function instantiationOf(
  program: ProgramGraph,
  classKey: string | undefined,
): ClassInstantiation | undefined {
  if (!classKey || genericKey(classKey) === classKey) return undefined;
  return instantiationsOf(program).get(classKey);
}
