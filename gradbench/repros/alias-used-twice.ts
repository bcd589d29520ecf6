// NABLA106 "field 'b' of 'Data' has a type differentiable code cannot use": an alias of an array
// type (here number[]; number[][] too) reached twice from one parameter's type — two fields of
// one interface, or fields of two nested interfaces. Writing `b: number[]` compiles and prints 3;
// an interface type used twice is fine, and two parameters of type Vec are fine.
import { gradient } from "nabla";

type Vec = number[];

interface Data {
  a: Vec;
  b: Vec;
}

function f(x: number, data: Data): number {
  return x * data.b[0];
}

console.log(gradient(f, { wrt: 0 })(2, { a: [1], b: [3] })); // expected 3
