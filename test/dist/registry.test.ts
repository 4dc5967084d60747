// acp_registry/agent.json and icon.svg against the ACP registry's rules (acp-protocol.md §16), and every platform
// in the manifest against an archive build-all really produces.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import pkg from "../../package.json" with { type: "json" };
import { REGISTRY_PLATFORMS, archiveName, archiveUrl, binaryName } from "../../scripts/build-all.ts";
import { TARGETS } from "../../scripts/build.ts";

const dir = join(import.meta.dir, "../../acp_registry");
const manifestText = readFileSync(join(dir, "agent.json"), "utf8");
const iconText = readFileSync(join(dir, "icon.svg"), "utf8");

const PLATFORMS = ["darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-x86_64", "windows-aarch64", "windows-x86_64"] as const;
const ARCHIVE_EXT = /\.(zip|tar\.gz|tgz|tar\.bz2|tbz2)$/;
const INSTALLER_EXT = /\.(dmg|pkg|deb|rpm|msi|appimage)$/i;

const binarySpec = z.strictObject({
  archive: z.url(),
  cmd: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/).optional(),
});
const manifestSchema = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9-]*$/),
  name: z.string().min(1),
  version: z.string().regex(/^\d+\.\d+\.\d+$/),
  description: z.string().min(1),
  repository: z.url().optional(),
  website: z.url().optional(),
  authors: z.array(z.string()).optional(),
  license: z.string().optional(),
  license_url: z.url().optional(),
  distribution: z
    .strictObject({
      binary: z.partialRecord(z.enum(PLATFORMS), binarySpec).optional(),
      npx: z.strictObject({ package: z.string(), args: z.array(z.string()).optional(), env: z.record(z.string(), z.string()).optional() }).optional(),
      uvx: z.strictObject({ package: z.string(), args: z.array(z.string()).optional(), env: z.record(z.string(), z.string()).optional() }).optional(),
    })
    .refine((d) => Object.keys(d).length > 0, "at least one distribution"),
});

/** The registry CI's checks, as problems (empty = valid). */
function manifestProblems(text: string, version: string): string[] {
  const parsed = manifestSchema.safeParse(JSON.parse(text));
  if (!parsed.success) return parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  const m = parsed.data;
  const problems: string[] = [];
  if (m.version !== version) problems.push(`version ${m.version} != package.json ${version}`);
  const binary = m.distribution.binary ?? {};
  for (const os of ["darwin", "linux", "windows"]) {
    if (!Object.keys(binary).some((k) => k.startsWith(`${os}-`))) problems.push(`no ${os} build`);
  }
  for (const [platform, spec] of Object.entries(binary)) {
    if (!spec) continue;
    if (!spec.archive.startsWith("https://")) problems.push(`${platform}: archive is not https`);
    if (spec.archive.includes("/latest/")) problems.push(`${platform}: /latest/ URL`);
    if (!spec.archive.includes(`/v${m.version}/`)) problems.push(`${platform}: version ${m.version} not in URL`);
    if (!ARCHIVE_EXT.test(spec.archive) || INSTALLER_EXT.test(spec.archive)) problems.push(`${platform}: archive type not allowed`);
  }
  return problems;
}

/** The registry's icon validator: 16×16 square, monochrome through currentColor. */
function iconProblems(svg: string): string[] {
  const problems: string[] = [];
  const root = /<svg\b[^>]*>/i.exec(svg)?.[0];
  if (!root) return ["not an SVG"];
  const attr = (name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(root)?.[1];
  const viewBox = attr("viewBox")?.trim().split(/[\s,]+/).map(Number);
  const width = attr("width") ?? (viewBox ? String(viewBox[2]) : undefined);
  const height = attr("height") ?? (viewBox ? String(viewBox[3]) : undefined);
  if (width !== "16" || height !== "16") problems.push(`size ${width}x${height}, expected 16x16`);
  if (viewBox && (viewBox.length !== 4 || viewBox[2] !== viewBox[3])) problems.push("viewBox is not square");
  if (viewBox && viewBox[2] !== 16) problems.push("viewBox is not 16 wide");
  const allowed = new Set(["currentcolor", "none", "inherit"]);
  for (const [, prop, value] of svg.matchAll(/\s(fill|stroke)="([^"]*)"/gi)) {
    if (!allowed.has((value ?? "").trim().toLowerCase())) problems.push(`${prop}="${value}"`);
  }
  for (const [, style] of svg.matchAll(/\sstyle="([^"]*)"/gi)) {
    for (const [, prop, value] of (style ?? "").matchAll(/(fill|stroke)\s*:\s*([^;]+)/gi)) {
      if (!allowed.has((value ?? "").trim().toLowerCase())) problems.push(`style ${prop}: ${value}`);
    }
  }
  if (/<(linearGradient|radialGradient|image|pattern)\b/i.test(svg)) problems.push("gradients/images are not monochrome");
  if (!/currentColor/.test(svg)) problems.push("currentColor is not used");
  return problems;
}

describe("acp_registry/agent.json", () => {
  const manifest = JSON.parse(manifestText);

  test("passes the registry rules", () => {
    expect(manifestProblems(manifestText, pkg.version)).toEqual([]);
    expect(manifest.id).toBe("hermes-acp");
    expect(manifest.name).toBe("Hermes");
    expect(manifest.repository).toBe("https://github.com/hermes-org/hermes-acp");
    expect(manifest.license).toBe("MIT");
    expect(manifest.icon).toBeUndefined();
  });

  test("ships the five platforms, each an archive build-all produces, launched as `acp`", () => {
    const binary: Record<string, { archive: string; cmd: string; args: string[] }> = manifest.distribution.binary;
    expect(Object.keys(binary).sort()).toEqual(["darwin-aarch64", "darwin-x86_64", "linux-aarch64", "linux-x86_64", "windows-x86_64"]);
    const produced = TARGETS.map((t) => archiveName(t));
    for (const [platform, spec] of Object.entries(binary)) {
      const target = REGISTRY_PLATFORMS[platform];
      if (!target) throw new Error(`no build mapping for ${platform}`);
      expect(produced).toContain(archiveName(target));
      expect(spec.archive).toBe(archiveUrl(target, pkg.version));
      expect(spec.cmd).toBe(`./${binaryName(target)}`);
      expect(spec.args).toEqual(["acp"]);
    }
  });

  test.each([
    ["a version that differs from package.json", (m: Record<string, unknown>) => Object.assign(m, { version: "9.9.9" }), "package.json"],
    ["a /latest/ URL", (m: Record<string, unknown>) => void setArchive(m, "https://github.com/hermes-org/hermes-acp/releases/latest/download/x.tar.gz"), "/latest/"],
    ["an installer archive", (m: Record<string, unknown>) => void setArchive(m, `https://example.com/v${pkg.version}/x.dmg`), "archive type"],
    ["an unknown platform key", (m: Record<string, unknown>) => void (bin(m)["solaris-sparc"] = { archive: "https://x/y.zip", cmd: "./x" }), "solaris"],
    ["a missing cmd", (m: Record<string, unknown>) => void delete record(bin(m)["linux-x86_64"]).cmd, "cmd"],
    ["a bad id", (m: Record<string, unknown>) => Object.assign(m, { id: "Hermes_ACP" }), "id"],
  ])("the checker rejects %s", (_label, mutate, expected) => {
    const m = JSON.parse(manifestText);
    mutate(m);
    expect(manifestProblems(JSON.stringify(m), pkg.version).join("\n")).toContain(expected);
  });
});

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}
function record(value: unknown): Record<string, unknown> {
  if (!isRecord(value)) throw new Error("expected an object in agent.json");
  return value;
}
function bin(m: Record<string, unknown>): Record<string, unknown> {
  return record(record(m.distribution).binary);
}
function setArchive(m: Record<string, unknown>, url: string): void {
  record(bin(m)["linux-x86_64"]).archive = url;
}

describe("acp_registry/icon.svg", () => {
  test("is a 16x16 monochrome currentColor icon", () => {
    expect(iconProblems(iconText)).toEqual([]);
    expect(iconText).toContain('viewBox="0 0 16 16"');
  });

  test.each([
    ["a colour fill", iconText.replace('fill="currentColor"', 'fill="#ff0000"'), 'fill="#ff0000"'],
    ["a colour in a style attribute", iconText.replace("<path ", '<path style="stroke: red" '), "style stroke: red"],
    ["a 24px size", iconText.replace('width="16" height="16" viewBox="0 0 16 16"', 'width="24" height="24" viewBox="0 0 24 24"'), "expected 16x16"],
    ["no currentColor", iconText.replaceAll("currentColor", "none"), "currentColor is not used"],
  ])("the checker rejects %s", (_label, svg, expected) => {
    expect(iconProblems(svg).join("\n")).toContain(expected);
  });
});
