// Compiles hermes-acp into self-contained binaries. `bun run build` → dist/hermes-acp for this machine;
// `bun run build:all` → every release target, packed as archives with SHA256SUMS.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { lazySchemasPlugin } from "./lazy-schemas.ts";

export type Target = { bunTarget: Bun.Build.CompileTarget; os: "linux" | "darwin" | "windows"; arch: "x64" | "arm64"; variant?: string };

export const TARGETS: Target[] = [
  { bunTarget: "bun-linux-x64", os: "linux", arch: "x64" },
  { bunTarget: "bun-linux-x64-baseline", os: "linux", arch: "x64", variant: "baseline" },
  { bunTarget: "bun-linux-arm64", os: "linux", arch: "arm64" },
  { bunTarget: "bun-linux-x64-musl", os: "linux", arch: "x64", variant: "musl" },
  { bunTarget: "bun-linux-arm64-musl", os: "linux", arch: "arm64", variant: "musl" },
  { bunTarget: "bun-darwin-x64", os: "darwin", arch: "x64" },
  { bunTarget: "bun-darwin-arm64", os: "darwin", arch: "arm64" },
  { bunTarget: "bun-windows-x64", os: "windows", arch: "x64" },
];

const root = join(import.meta.dir, "..");

/**
 * Startup is a burst of run-once code (schema construction, module bodies): JIT-compiling it costs more
 * than it saves (spawn → session/new 38–42 ms at policy 1, 33 ms at 20). The app restores the normal policy
 * once interactive (src/util/jit.ts).
 */
const STARTUP_JIT_POLICY = 20;

/**
 * Compiles src/main.ts for one target (default: this machine): hermetic (no .env / bunfig autoload), minified,
 * bytecode, version baked in, and the ACP SDK's validators built on first use (lazy-schemas.ts).
 */
export async function compileBinary(outfile: string, target?: Bun.Build.CompileTarget): Promise<string> {
  const result = await Bun.build({
    entrypoints: [join(root, "src/main.ts")],
    compile: { outfile, autoloadDotenv: false, autoloadBunfig: false, jitPolicy: STARTUP_JIT_POLICY, ...(target ? { target } : {}) },
    minify: true,
    bytecode: true,
    format: "esm",
    define: { HERMES_ACP_VERSION: JSON.stringify(pkg.version) },
    plugins: [lazySchemasPlugin],
    throw: false,
  });
  if (!result.success) throw new Error(`build failed:\n${result.logs.map(String).join("\n")}`);
  return outfile;
}

export async function buildHost(outfile = join(root, "dist/hermes-acp")): Promise<string> {
  mkdirSync(join(root, "dist"), { recursive: true });
  return compileBinary(outfile);
}

if (import.meta.main) {
  if (!process.argv.includes("--all")) {
    const out = await buildHost();
    process.stderr.write(`built ${out}\n`);
  } else {
    const { buildAll } = await import("./build-all.ts");
    await buildAll(TARGETS);
  }
}

