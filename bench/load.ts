import { pathToFileURL } from "node:url";
import { installHooks } from "../src/register/install.js";

// Loads benchmark programs the way users run them: through nabla's module hooks, which
// compile each TypeScript program (with its derivatives) when it is first imported.

let installed = false;

export async function importCompiled<T>(file: string): Promise<T> {
  if (!installed) {
    installHooks();
    installed = true;
  }
  return (await import(pathToFileURL(file).href)) as T;
}
