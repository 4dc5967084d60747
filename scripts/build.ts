// Compiles hermes-acp into self-contained binaries. `bun run build` → dist/hermes-acp for this machine;
// `bun run build:all` → every release target, packed as archives with SHA256SUMS.
import { $ } from "bun";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import pkg from "../package.json" with { type: "json" };

export type Target = { bunTarget: string; os: "linux" | "darwin" | "windows"; arch: "x64" | "arm64"; variant?: string };

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

/** Flags shared by every build: hermetic (no .env / bunfig autoload), minified, version baked in. */
export function compileArgs(outfile: string, target?: string): string[] {
  return [
    "build",
    "--compile",
    "--minify",
    "--bytecode",
    "--format=esm",
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    `--define=HERMES_ACP_VERSION=${JSON.stringify(pkg.version)}`,
    ...(target ? [`--target=${target}`] : []),
    join(root, "src/main.ts"),
    "--outfile",
    outfile,
  ];
}

export async function buildHost(outfile = join(root, "dist/hermes-acp")): Promise<string> {
  mkdirSync(join(root, "dist"), { recursive: true });
  await $`bun ${compileArgs(outfile)}`.quiet();
  return outfile;
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

