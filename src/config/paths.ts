// Where Hermes keeps its files. Resolved at call time (never at import time) so tests and
// `HERMES_HOME=... hermes-acp` both see the home they set.
import { homedir } from "node:os";
import { posix, win32 } from "node:path";

export type EnvLike = Record<string, string | undefined>;

export type HomeOptions = {
  /** Defaults to process.platform; injected by tests to exercise the Windows rule anywhere. */
  platform?: NodeJS.Platform;
  /** Fallback user home when the env has none; defaults to os.homedir(). */
  homeDir?: string;
};

export type HermesPaths = {
  home: string;
  env: string;
  config: string;
  stateDb: string;
  modelsCache: string;
  skills: string;
};

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/** HERMES_HOME, else `~/.hermes`; on Windows `%LOCALAPPDATA%\hermes` (as Hermes does). */
export function hermesHome(env: EnvLike = process.env, options: HomeOptions = {}): string {
  const platform = options.platform ?? process.platform;
  const path = platform === "win32" ? win32 : posix;
  const userHome = () =>
    nonEmpty(platform === "win32" ? env.USERPROFILE : env.HOME) ?? options.homeDir ?? homedir();

  const explicit = nonEmpty(env.HERMES_HOME);
  if (explicit) {
    // A literal "~" survives when the variable was set in a file or quoted; expand it like a shell would.
    const expanded = /^~(?=$|[\\/])/.test(explicit) ? userHome() + explicit.slice(1) : explicit;
    return path.resolve(expanded);
  }
  if (platform === "win32") {
    const localAppData = nonEmpty(env.LOCALAPPDATA) ?? path.join(userHome(), "AppData", "Local");
    return path.join(localAppData, "hermes");
  }
  return path.join(userHome(), ".hermes");
}

/** The files under a Hermes home. Pure: pass `hermesHome()` for the live one. */
export function hermesPaths(home: string = hermesHome(), platform: NodeJS.Platform = process.platform): HermesPaths {
  const path = platform === "win32" ? win32 : posix;
  return {
    home,
    env: path.join(home, ".env"),
    config: path.join(home, "config.yaml"),
    stateDb: path.join(home, "state.db"),
    modelsCache: path.join(home, "models-cache.json"),
    skills: path.join(home, "skills"),
  };
}
