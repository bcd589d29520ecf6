// The smallest nabla program: the derivative of x³ at 4 is 3·4² = 48.
import { derivative } from "nabla";

console.log(derivative((x: number) => x * x * x)(4));
