import { installHooks } from "./install.js";

// `node --import nabla/register app.ts`: runs TypeScript programs compiled by nabla, their
// derivatives included, with compiled programs cached on disk between starts.

installHooks(undefined, { diskCache: true });
