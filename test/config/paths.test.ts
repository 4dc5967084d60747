import { describe, expect, test } from "bun:test";
import { hermesHome, hermesPaths } from "../../src/config/paths.ts";

describe("hermesHome", () => {
  test("HERMES_HOME wins, trimmed and made absolute", () => {
    expect(hermesHome({ HERMES_HOME: "  /srv/hermes  ", HOME: "/home/u" }, { platform: "linux" })).toBe("/srv/hermes");
  });

  test("a leading ~ in HERMES_HOME expands to the user home", () => {
    expect(hermesHome({ HERMES_HOME: "~/alt", HOME: "/home/u" }, { platform: "linux" })).toBe("/home/u/alt");
  });

  test("POSIX default is ~/.hermes from HOME", () => {
    expect(hermesHome({ HOME: "/home/u" }, { platform: "darwin" })).toBe("/home/u/.hermes");
  });

  test("blank HERMES_HOME is ignored", () => {
    expect(hermesHome({ HERMES_HOME: "   ", HOME: "/home/u" }, { platform: "linux" })).toBe("/home/u/.hermes");
  });

  test("without HOME it falls back to the injected home directory", () => {
    expect(hermesHome({}, { platform: "linux", homeDir: "/fallback" })).toBe("/fallback/.hermes");
  });

  test("Windows default is %LOCALAPPDATA%\\hermes", () => {
    const env = { LOCALAPPDATA: "C:\\Users\\Ann\\AppData\\Local", USERPROFILE: "C:\\Users\\Ann" };
    expect(hermesHome(env, { platform: "win32" })).toBe("C:\\Users\\Ann\\AppData\\Local\\hermes");
  });

  test("Windows without LOCALAPPDATA derives it from USERPROFILE", () => {
    expect(hermesHome({ USERPROFILE: "C:\\Users\\Ann" }, { platform: "win32" })).toBe("C:\\Users\\Ann\\AppData\\Local\\hermes");
  });

  test("Windows honours HERMES_HOME too", () => {
    expect(hermesHome({ HERMES_HOME: "D:\\hermes", LOCALAPPDATA: "C:\\x" }, { platform: "win32" })).toBe("D:\\hermes");
  });

  test("reads process.env at call time, not import time", () => {
    const saved = process.env.HERMES_HOME;
    try {
      process.env.HERMES_HOME = "/tmp/hermes-call-time-a";
      expect(hermesHome()).toBe("/tmp/hermes-call-time-a");
      process.env.HERMES_HOME = "/tmp/hermes-call-time-b";
      expect(hermesPaths().config).toBe("/tmp/hermes-call-time-b/config.yaml");
    } finally {
      process.env.HERMES_HOME = saved;
    }
  });
});

describe("hermesPaths", () => {
  test("lists the files Hermes keeps under its home", () => {
    expect(hermesPaths("/h", "linux")).toEqual({
      home: "/h",
      env: "/h/.env",
      config: "/h/config.yaml",
      stateDb: "/h/state.db",
      modelsCache: "/h/models-cache.json",
      skills: "/h/skills",
    });
  });

  test("uses Windows separators on Windows", () => {
    expect(hermesPaths("C:\\h", "win32").config).toBe("C:\\h\\config.yaml");
  });
});
