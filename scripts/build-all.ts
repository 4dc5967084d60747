// `bun run build:all`: cross-compiles every release target (Bun fetches each target's runtime from the npm
// registry), packs dist/hermes-acp-<os>-<arch>[-variant].tar.gz (.zip for Windows), writes dist/SHA256SUMS and
// dist/agent.json (acp_registry/agent.json with the sha256 of each archive filled in).
import { $ } from "bun";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { tarGz, zip } from "./archive.ts";
import { compileBinary, type Target } from "./build.ts";

export type BuiltArchive = { target: Target; file: string; archiveBytes: number; binaryBytes: number; sha256: string; bareBytes?: number };

export type BuildAllOptions = {
  outDir?: string;
  /** Produces the binary for a target; the default is compileBinary. Tests inject a fake. */
  compile?: (target: Target, outfile: string) => Promise<void>;
  /** Also compile `console.log(1)` per target and report the size overhead. Default: true. */
  compareBare?: boolean;
  /** Parallel compiles; each one holds a whole runtime in memory. */
  concurrency?: number;
  report?: (line: string) => void;
};

/** The registry's platform keys (§16.2) and the archive each one ships. Linux x64 uses the baseline build: the
 * registry cannot detect AVX2, and the baseline runs on every x64 CPU. */
export const REGISTRY_PLATFORMS: Readonly<Record<string, Pick<Target, "os" | "arch" | "variant">>> = {
  "darwin-aarch64": { os: "darwin", arch: "arm64" },
  "darwin-x86_64": { os: "darwin", arch: "x64" },
  "linux-aarch64": { os: "linux", arch: "arm64" },
  "linux-x86_64": { os: "linux", arch: "x64", variant: "baseline" },
  "windows-x86_64": { os: "windows", arch: "x64" },
};

export const RELEASE_BASE = "https://github.com/hermes-org/hermes-acp/releases/download";

const root = join(import.meta.dir, "..");

export function binaryName(target: Pick<Target, "os">): string {
  return target.os === "windows" ? "hermes-acp.exe" : "hermes-acp";
}

export function archiveName(target: Pick<Target, "os" | "arch" | "variant">): string {
  const base = `hermes-acp-${target.os}-${target.arch}${target.variant ? `-${target.variant}` : ""}`;
  return target.os === "windows" ? `${base}.zip` : `${base}.tar.gz`;
}

export function archiveUrl(target: Pick<Target, "os" | "arch" | "variant">, version: string = pkg.version): string {
  return `${RELEASE_BASE}/v${version}/${archiveName(target)}`;
}

export function sha256Hex(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** `sha256sum` format: "<hex>  <name>" per line, sorted by name. */
export function sha256sums(entries: readonly { name: string; sha256: string }[]): string {
  return [...entries]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((e) => `${e.sha256}  ${e.name}\n`)
    .join("");
}

/** Packs one compiled binary under its release archive name; returns the archive bytes. */
export function packBinary(target: Pick<Target, "os">, binary: Uint8Array, level = 9): Uint8Array {
  const entry = { name: binaryName(target), data: binary, mode: 0o755 };
  return target.os === "windows" ? zip([entry], level) : tarGz([entry], level);
}

export async function buildAll(targets: readonly Target[], options: BuildAllOptions = {}): Promise<BuiltArchive[]> {
  const outDir = options.outDir ?? join(root, "dist");
  const compile = options.compile ?? compileWithBun;
  const report = options.report ?? ((line: string) => process.stderr.write(`${line}\n`));
  const staging = join(outDir, ".staging");
  mkdirSync(staging, { recursive: true });

  const built: BuiltArchive[] = [];
  try {
    await inBatches(targets, options.concurrency ?? 2, async (target) => {
      const started = performance.now();
      const binaryPath = join(staging, `${archiveName(target)}.bin`);
      await compile(target, binaryPath);
      const binary = new Uint8Array(readFileSync(compiledFile(binaryPath)));
      const archive = packBinary(target, binary);
      const file = join(outDir, archiveName(target));
      writeFileSync(file, archive);
      rmSync(compiledFile(binaryPath), { force: true });
      const entry: BuiltArchive = { target, file, archiveBytes: archive.length, binaryBytes: binary.length, sha256: sha256Hex(archive) };
      if (options.compareBare ?? true) entry.bareBytes = await bareSize(target, staging);
      built.push(entry);
      report(`${archiveName(target)}  ${mb(entry.binaryBytes)} binary, ${mb(entry.archiveBytes)} packed  (${((performance.now() - started) / 1000).toFixed(1)} s)`);
    });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  built.sort((a, b) => (archiveName(a.target) < archiveName(b.target) ? -1 : 1));

  writeFileSync(join(outDir, "SHA256SUMS"), sha256sums(built.map((b) => ({ name: archiveName(b.target), sha256: b.sha256 }))));
  const manifestPath = join(root, "acp_registry/agent.json");
  if (existsSync(manifestPath)) {
    const manifest = withChecksums(JSON.parse(readFileSync(manifestPath, "utf8")), built);
    writeFileSync(join(outDir, "agent.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  }
  for (const b of built) {
    if (b.bareBytes === undefined) continue;
    const over = (b.binaryBytes - b.bareBytes) / b.bareBytes;
    report(`${archiveName(b.target).padEnd(40)} ${mb(b.binaryBytes)} vs bare ${mb(b.bareBytes)}  (+${(over * 100).toFixed(1)} %)`);
  }
  report(`wrote ${built.length} archives and SHA256SUMS to ${outDir}`);
  return built;
}

/** Fills distribution.binary.<platform>.sha256 from the archives just built (the registry asks to pin it). */
export function withChecksums(manifest: unknown, built: readonly BuiltArchive[]): unknown {
  if (typeof manifest !== "object" || manifest === null) return manifest;
  const binary: unknown = Reflect.get(Reflect.get(manifest, "distribution") ?? {}, "binary");
  if (typeof binary !== "object" || binary === null) return manifest;
  for (const [platform, spec] of Object.entries(binary)) {
    const wanted = REGISTRY_PLATFORMS[platform];
    const match = wanted && built.find((b) => archiveName(b.target) === archiveName(wanted));
    if (match && typeof spec === "object" && spec !== null) Reflect.set(spec, "sha256", match.sha256);
  }
  return manifest;
}

async function compileWithBun(target: Target, outfile: string): Promise<void> {
  await compileBinary(outfile, target.bunTarget);
}

async function bareSize(target: Target, dir: string): Promise<number> {
  const source = join(tmpdir(), `hermes-acp-bare-${process.pid}.ts`);
  writeFileSync(source, "console.log(1);\n");
  const out = join(dir, `bare-${target.bunTarget}`);
  await $`bun build --compile --minify --target=${target.bunTarget} ${source} --outfile ${out}`.quiet();
  const file = compiledFile(out);
  const size = statSync(file).size;
  rmSync(file, { force: true });
  return size;
}

/** Bun appends .exe to Windows outfiles that lack it. */
function compiledFile(path: string): string {
  return !existsSync(path) && existsSync(`${path}.exe`) ? `${path}.exe` : path;
}

async function inBatches<T>(items: readonly T[], width: number, run: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  const workers = Array.from({ length: Math.max(1, Math.min(width, queue.length)) }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await run(item);
  });
  await Promise.all(workers);
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
