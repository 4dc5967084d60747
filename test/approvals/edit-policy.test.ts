import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decideEdit, isSensitivePath, type Mode, resolveWriteTarget } from "../../src/approvals/edit-policy.ts";

let root = "";
let ws = "";
let tmp = "";
let home = "";
let hermesHome = "";
let outside = "";

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "edit-policy-"));
  ws = join(root, "ws");
  tmp = join(root, "systmp");
  home = join(root, "home");
  hermesHome = join(home, ".hermes");
  outside = join(root, "outside");
  for (const dir of [ws, tmp, hermesHome, outside, join(home, ".ssh"), join(ws, ".git")]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(ws, "app.ts"), "x");
  writeFileSync(join(outside, "secret.txt"), "x");
  // Links inside the workspace that lead out of it.
  symlinkSync(outside, join(ws, "link-dir"));
  symlinkSync(join(outside, "secret.txt"), join(ws, "link-file.txt"));
  symlinkSync(join(outside, "not-yet.txt"), join(ws, "dangling.txt"));
  symlinkSync(join(home, ".ssh"), join(ws, "keys"));
  // A workspace reached through a symlink is still the workspace.
  symlinkSync(ws, join(root, "ws-alias"));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

type Kind =
  | "workspace file"
  | "new file in new workspace dirs"
  | "temp file"
  | "file outside cwd"
  | "symlinked dir inside cwd pointing outside"
  | "symlinked file inside cwd pointing outside"
  | "dangling symlink inside cwd pointing outside"
  | "sensitive .env"
  | "sensitive .git/config"
  | "sensitive ~/.ssh/id_rsa"
  | "sensitive ~/.bashrc"
  | "sensitive $HERMES_HOME/config.yaml"
  | "sensitive via symlink into ~/.ssh";

function pathOf(kind: Kind): string {
  switch (kind) {
    case "workspace file":
      return join(ws, "app.ts");
    case "new file in new workspace dirs":
      return join(ws, "src", "deep", "new.ts");
    case "temp file":
      return join(tmp, "scratch.txt");
    case "file outside cwd":
      return join(outside, "secret.txt");
    case "symlinked dir inside cwd pointing outside":
      return join(ws, "link-dir", "new.txt");
    case "symlinked file inside cwd pointing outside":
      return join(ws, "link-file.txt");
    case "dangling symlink inside cwd pointing outside":
      return join(ws, "dangling.txt");
    case "sensitive .env":
      return join(ws, ".env");
    case "sensitive .git/config":
      return join(ws, ".git", "config");
    case "sensitive ~/.ssh/id_rsa":
      return join(home, ".ssh", "id_rsa");
    case "sensitive ~/.bashrc":
      return join(home, ".bashrc");
    case "sensitive $HERMES_HOME/config.yaml":
      return join(hermesHome, "config.yaml");
    case "sensitive via symlink into ~/.ssh":
      return join(ws, "keys", "authorized_keys");
  }
}

const A = "allow" as const;
const Q = "ask" as const;
// mode → expected per kind. Sensitive paths ask in every mode.
const TABLE: Record<Kind, Record<Mode, "allow" | "ask">> = {
  "workspace file": { default: Q, accept_edits: A, dont_ask: A },
  "new file in new workspace dirs": { default: Q, accept_edits: A, dont_ask: A },
  "temp file": { default: Q, accept_edits: A, dont_ask: A },
  "file outside cwd": { default: Q, accept_edits: Q, dont_ask: A },
  "symlinked dir inside cwd pointing outside": { default: Q, accept_edits: Q, dont_ask: A },
  "symlinked file inside cwd pointing outside": { default: Q, accept_edits: Q, dont_ask: A },
  "dangling symlink inside cwd pointing outside": { default: Q, accept_edits: Q, dont_ask: A },
  "sensitive .env": { default: Q, accept_edits: Q, dont_ask: Q },
  "sensitive .git/config": { default: Q, accept_edits: Q, dont_ask: Q },
  "sensitive ~/.ssh/id_rsa": { default: Q, accept_edits: Q, dont_ask: Q },
  "sensitive ~/.bashrc": { default: Q, accept_edits: Q, dont_ask: Q },
  "sensitive $HERMES_HOME/config.yaml": { default: Q, accept_edits: Q, dont_ask: Q },
  "sensitive via symlink into ~/.ssh": { default: Q, accept_edits: Q, dont_ask: Q },
};

describe("decideEdit: mode × path", () => {
  for (const [kind, expected] of Object.entries(TABLE) as [Kind, Record<Mode, "allow" | "ask">][]) {
    for (const mode of ["default", "accept_edits", "dont_ask"] as const) {
      test(`${mode} / ${kind} → ${expected[mode]}`, () => {
        const decision = decideEdit([pathOf(kind)], { mode, cwd: ws, tmpDir: tmp, home, hermesHome, sessionAllowsEdits: false });
        expect(decision).toBe(expected[mode]);
      });
    }
  }

  test("'allow edits for this session' allows everything except sensitive paths, in default mode", () => {
    const ctx = { mode: "default" as const, cwd: ws, tmpDir: tmp, home, hermesHome, sessionAllowsEdits: true };
    expect(decideEdit([pathOf("workspace file")], ctx)).toBe("allow");
    expect(decideEdit([pathOf("file outside cwd")], ctx)).toBe("allow");
    expect(decideEdit([pathOf("sensitive .env")], ctx)).toBe("ask");
    expect(decideEdit([pathOf("sensitive via symlink into ~/.ssh")], ctx)).toBe("ask");
  });

  test("several files: allow only if every one is allowed", () => {
    const ctx = { mode: "accept_edits" as const, cwd: ws, tmpDir: tmp, home, hermesHome, sessionAllowsEdits: false };
    expect(decideEdit([pathOf("workspace file"), pathOf("temp file")], ctx)).toBe("allow");
    expect(decideEdit([pathOf("workspace file"), pathOf("file outside cwd")], ctx)).toBe("ask");
    expect(decideEdit([], ctx)).toBe("ask");
  });

  test("relative paths resolve against the session cwd, and a symlinked cwd still counts as the workspace", () => {
    const ctx = { mode: "accept_edits" as const, cwd: join(root, "ws-alias"), tmpDir: tmp, home, hermesHome, sessionAllowsEdits: false };
    expect(decideEdit(["app.ts"], ctx)).toBe("allow");
    expect(decideEdit([join(ws, "app.ts")], ctx)).toBe("allow");
    expect(decideEdit(["../outside/secret.txt"], ctx)).toBe("ask");
  });
});

describe("resolveWriteTarget", () => {
  test("follows links, including dangling ones and missing ancestors", () => {
    const real = (p: string) => resolveWriteTarget(p);
    expect(real(join(ws, "link-dir", "a", "b.txt"))).toBe(join(real(outside) ?? "", "a", "b.txt"));
    expect(real(join(ws, "dangling.txt"))).toBe(join(real(outside) ?? "", "not-yet.txt"));
  });

  test("a link loop cannot be resolved (the caller asks)", () => {
    const a = join(root, "loop-a");
    const b = join(root, "loop-b");
    symlinkSync(b, a);
    symlinkSync(a, b);
    expect(resolveWriteTarget(join(a, "x"))).toBeNull();
    expect(decideEdit([join(a, "x")], { mode: "dont_ask", cwd: ws, tmpDir: tmp, home, hermesHome, sessionAllowsEdits: false })).toBe("ask");
  });
});

describe("isSensitivePath", () => {
  const homes = { home: "/home/u", hermesHome: "/home/u/.hermes" };
  const sensitive = [
    "/p/.git/config",
    "/p/.GIT/HEAD",
    "/home/u/.ssh/config",
    "/p/.env",
    "/p/.env.local",
    "/p/.env.production",
    "/p/keys/id_ed25519",
    "/p/certs/server.pem",
    "/p/tls.key",
    "/home/u/.netrc",
    "/home/u/.npmrc",
    "/p/.npmrc",
    "/home/u/.pypirc",
    "/home/u/.pgpass",
    "/home/u/.bashrc",
    "/home/u/.zshrc",
    "/home/u/.profile",
    "/home/u/.bash_profile",
    "/home/u/.zprofile",
    "/home/u/.hermes/config.yaml",
    "/home/u/.hermes/.env",
  ];
  const ordinary = ["/p/src/app.ts", "/p/.envrc", "/p/environment.ts", "/p/config.yaml", "/home/u/.hermes/skills/x.md", "/p/id_rsa.pub", "/p/.github/workflows/ci.yml", "/p/gitconfig.txt"];
  for (const path of sensitive) test(`sensitive: ${path}`, () => expect(isSensitivePath(path, homes)).toBe(true));
  for (const path of ordinary) test(`ordinary: ${path}`, () => expect(isSensitivePath(path, homes)).toBe(false));

  test("the Hermes home is matched wherever HERMES_HOME points", () => {
    expect(isSensitivePath("/opt/hermes/config.yaml", { home: "/home/u", hermesHome: "/opt/hermes" })).toBe(true);
  });
});
