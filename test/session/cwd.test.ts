import { describe, expect, test } from "bun:test";
import { normalizeCwdForMatch, pathFromFileUri, translateCwd } from "../../src/session/cwd.ts";

describe("Windows / WSL paths (hermes-behaviour §9)", () => {
  test("under WSL, drive paths become /mnt/<drive>; elsewhere they are kept", () => {
    expect(translateCwd("E:\\Projects\\AI\\paperclip", true)).toBe("/mnt/e/Projects/AI/paperclip");
    expect(translateCwd("D:/work/project", true)).toBe("/mnt/d/work/project");
    expect(translateCwd("/home/u/p", true)).toBe("/home/u/p");
    expect(translateCwd("C:", true)).toBe("C:");
    expect(translateCwd("E:\\Projects", false)).toBe("E:\\Projects");
  });

  test("list filters compare normalised cwds", () => {
    expect(normalizeCwdForMatch("E:\\Projects\\AI\\browser-link-3")).toBe("/mnt/e/Projects/AI/browser-link-3");
    expect(normalizeCwdForMatch("/mnt/E/Projects/AI/browser-link-3/")).toBe("/mnt/e/Projects/AI/browser-link-3");
    expect(normalizeCwdForMatch("~/x", "/home/u")).toBe("/home/u/x");
    expect(normalizeCwdForMatch(null)).toBe(".");
    expect(normalizeCwdForMatch("/a/b/../c")).toBe("/a/c");
  });

  test("file URIs: percent-decoding, drive letters, foreign hosts and schemes", () => {
    expect(pathFromFileUri("file:///home/u/My%20File.ts")).toBe("/home/u/My File.ts");
    expect(pathFromFileUri("file:///C:/Users/me/a.ts")).toBe("/mnt/c/Users/me/a.ts");
    expect(pathFromFileUri("C:\\Users\\me\\a.ts")).toBe("/mnt/c/Users/me/a.ts");
    expect(pathFromFileUri("file://localhost/etc/hosts")).toBe("/etc/hosts");
    expect(pathFromFileUri("file://otherhost/etc/hosts")).toBeNull();
    expect(pathFromFileUri("https://example.com/a")).toBeNull();
    expect(pathFromFileUri("")).toBeNull();
  });
});
