import pkg from "../package.json" with { type: "json" };

// `bun run build` injects the release version with --define; a source checkout reads package.json.
declare const HERMES_ACP_VERSION: string | undefined;

export const VERSION: string = typeof HERMES_ACP_VERSION === "string" ? HERMES_ACP_VERSION : pkg.version;
