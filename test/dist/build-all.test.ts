// buildAll's packing, naming, SHA256SUMS and registry checksums, with a fake compiler (no cross builds in tests);
// the archives are read back with the system's tar/unzip where present.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { zip } from "../../scripts/archive.ts";
import { REGISTRY_PLATFORMS, archiveName, binaryName, buildAll, packBinary, sha256Hex } from "../../scripts/build-all.ts";
import { TARGETS, type Target } from "../../scripts/build.ts";

const fakeBinary = (target: Target) => new TextEncoder().encode(`#!/bin/sh\necho fake ${target.bunTarget}\n`);

async function buildFake() {
  const outDir = mkdtempSync(join(tmpdir(), "hermes-build-all-"));
  const built = await buildAll(TARGETS, {
    outDir,
    compareBare: false,
    report: () => undefined,
    compile: async (target, outfile) => writeFileSync(outfile, fakeBinary(target)),
  });
  return { outDir, built };
}

describe("buildAll", () => {
  test("names one archive per target, tar.gz for unix and zip for windows", async () => {
    const { outDir, built } = await buildFake();
    const names = TARGETS.map((t) => archiveName(t));
    expect(names).toEqual([
      "hermes-acp-linux-x64.tar.gz",
      "hermes-acp-linux-x64-baseline.tar.gz",
      "hermes-acp-linux-arm64.tar.gz",
      "hermes-acp-linux-x64-musl.tar.gz",
      "hermes-acp-linux-arm64-musl.tar.gz",
      "hermes-acp-darwin-x64.tar.gz",
      "hermes-acp-darwin-arm64.tar.gz",
      "hermes-acp-windows-x64.zip",
    ]);
    expect(readdirSync(outDir).sort()).toEqual([...names, "SHA256SUMS", "agent.json"].sort());
    expect(built).toHaveLength(TARGETS.length);
  });

  test("writes SHA256SUMS in sha256sum format matching the files", async () => {
    const { outDir } = await buildFake();
    const lines = readFileSync(join(outDir, "SHA256SUMS"), "utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(TARGETS.length);
    for (const line of lines) {
      const match = /^([0-9a-f]{64}) {2}(\S+)$/.exec(line);
      expect(match).not.toBeNull();
      expect(sha256Hex(new Uint8Array(readFileSync(join(outDir, match?.[2] ?? ""))))).toBe(match?.[1] ?? "");
    }
    const sha256sum = Bun.which("sha256sum");
    if (sha256sum) expect(Bun.spawnSync([sha256sum, "-c", "--quiet", "SHA256SUMS"], { cwd: outDir }).exitCode).toBe(0);
  });

  test("tar.gz archives hold an executable hermes-acp", async () => {
    const { outDir } = await buildFake();
    const target = TARGETS.find((t) => t.os === "linux" && !t.variant);
    if (!target) throw new Error("no linux target");
    const bytes = readFileSync(join(outDir, archiveName(target)));
    const files = await new Bun.Archive(bytes).files();
    expect([...files.keys()]).toEqual(["hermes-acp"]);
    expect(await files.get("hermes-acp")?.text()).toBe(new TextDecoder().decode(fakeBinary(target)));
    const tar = Bun.which("tar");
    if (tar && process.platform !== "win32") {
      const dir = mkdtempSync(join(tmpdir(), "hermes-untar-"));
      expect(Bun.spawnSync([tar, "-xzf", join(outDir, archiveName(target)), "-C", dir]).exitCode).toBe(0);
      expect(statSync(join(dir, "hermes-acp")).mode & 0o777).toBe(0o755);
    }
  });

  test.skipIf(!Bun.which("unzip"))("the windows zip holds hermes-acp.exe and unzips intact", async () => {
    const { outDir } = await buildFake();
    const target = TARGETS.find((t) => t.os === "windows");
    if (!target) throw new Error("no windows target");
    const file = join(outDir, archiveName(target));
    expect(Bun.spawnSync(["unzip", "-tq", file]).exitCode).toBe(0);
    expect(Bun.spawnSync(["unzip", "-Z1", file]).stdout.toString().trim()).toBe("hermes-acp.exe");
    expect(Bun.spawnSync(["unzip", "-p", file, "hermes-acp.exe"]).stdout.toString()).toBe(new TextDecoder().decode(fakeBinary(target)));
  });

  test("writes dist/agent.json with each platform's archive checksum", async () => {
    const { outDir, built } = await buildFake();
    const manifest = JSON.parse(readFileSync(join(outDir, "agent.json"), "utf8"));
    for (const [platform, wanted] of Object.entries(REGISTRY_PLATFORMS)) {
      const archive = built.find((b) => archiveName(b.target) === archiveName(wanted));
      expect(manifest.distribution.binary[platform].sha256).toBe(archive?.sha256);
    }
  });

  test("packing is deterministic and compresses", () => {
    const data = new Uint8Array(200_000).fill(7);
    const a = packBinary({ os: "linux" }, data);
    expect(packBinary({ os: "linux" }, data)).toEqual(a);
    expect(a.length).toBeLessThan(data.length / 10);
    expect(binaryName({ os: "windows" })).toBe("hermes-acp.exe");
    expect(zip([{ name: "x", data, mode: 0o755 }])).toEqual(zip([{ name: "x", data, mode: 0o755 }]));
  });
});
