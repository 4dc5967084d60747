// Registers lazy-schemas.ts for `bun run start` and `bun test`, so they run the SDK code the binary ships.
import { lazySchemasPlugin } from "./lazy-schemas.ts";

Bun.plugin(lazySchemasPlugin);
