// Vite compiles the app's TypeScript with nabla's plugin, which generates the derivative code
// for model.ts. Run `npx vite examples/curve-fit` from the repository root (after `npm run
// build`: the plugin is loaded from dist/).
import { defineConfig } from "vite";
import nabla from "nabla/plugin";

export default defineConfig({
  // Relative asset URLs: the built app works from any folder it is served from.
  base: "./",
  plugins: [nabla.vite()],
});
