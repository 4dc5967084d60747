// `--setup`: pick a provider, key and model, write $HERMES_HOME/.env (0600) and config.yaml, then run the same
// checks as `--check`. Interactive (@clack/prompts) in a terminal; driven by flags for scripts and tests.
// Loaded only for `--setup`: clack writes to stdout, which the serve path reserves for JSON-RPC.
import { intro, isCancel, log as clackLog, outro, password, select, text } from "@clack/prompts";
import { mkdir, readFile, stat } from "node:fs/promises";
import { z } from "zod";
import { hermesHome, hermesPaths, type EnvLike, type HermesPaths } from "../config/paths.ts";
import { PROVIDERS, findProvider } from "../llm/providers.ts";
import { MODES } from "../session/modes.ts";
import { runCheck } from "./check.ts";
import {
  applySetup,
  currentChoice,
  currentMode,
  editorSnippets,
  existingKey,
  needsBaseUrl,
  setDefaultMode,
  type SetupAnswers,
  type SetupFiles,
} from "./setup-steps.ts";
import { writeFileAtomically } from "../util/atomic-write.ts";

export type SetupOptions = { provider?: string; apiKey?: string; baseUrl?: string; model?: string; mode?: string; env?: EnvLike };

type Ui = { info(text: string): void; warn(text: string): void; error(text: string): void };

const plainUi: Ui = {
  info: (line) => process.stdout.write(`${line}\n`),
  warn: (line) => process.stderr.write(`${line}\n`),
  error: (line) => process.stderr.write(`${line}\n`),
};
const clackUi: Ui = { info: (line) => clackLog.info(line), warn: (line) => clackLog.warn(line), error: (line) => clackLog.error(line) };

/** Exit code: 0 configured and checked, 1 failed, 130 cancelled (Ctrl-C / EOF). Flags make it non-interactive. */
export async function runSetup(options: SetupOptions = {}): Promise<number> {
  const env = options.env ?? process.env;
  const paths = hermesPaths(hermesHome(env));
  const scripted = options.provider !== undefined || options.model !== undefined || options.mode !== undefined;
  if (!scripted && !process.stdin.isTTY) {
    plainUi.error("hermes-acp --setup needs a terminal. Without one, pass the answers as flags:");
    plainUi.error("  hermes-acp --setup --provider <id> --model <name> [--api-key <key>] [--base-url <url>] [--mode <id>]");
    return 1;
  }
  let current: SetupFiles;
  try {
    current = await readCurrent(paths);
  } catch (error) {
    plainUi.error(`Could not read the Hermes settings in ${paths.home}: ${message(error)}`);
    return 1;
  }

  const ui = scripted ? plainUi : clackUi;
  // `--setup --mode <id>` alone changes only the approval mode.
  if (options.mode !== undefined && options.provider === undefined && options.model === undefined) {
    const changed = setDefaultMode(current.configText, options.mode);
    if (!changed.ok) {
      ui.error(changed.error);
      return 1;
    }
    if (!(await save(paths, current, { envText: current.envText, configText: changed.text }, ui))) return 1;
    ui.info(`Saved acp.default_mode: ${options.mode.trim()} to ${paths.config}.`);
    return finish(ui, scripted, env);
  }
  const answers = scripted ? fromFlags(options) : await ask(paths, current, env);
  // Cancelled: nothing has been written, and nothing will be.
  if (!answers) return 130;
  // A key exported in the shell (kept off the command line, where `ps` shows it) is saved to .env too:
  // editors launch the agent without the shell's environment.
  const provider = findProvider(answers.provider);
  if (provider && !answers.apiKey && !existingKey(provider, current.envText)) {
    const fromShell = existingKey(provider, "", env);
    if (fromShell) answers.apiKey = fromShell;
  }

  const plan = applySetup(answers, current, env);
  if (!plan.ok) {
    ui.error(plan.error);
    return 1;
  }
  if (!(await save(paths, current, plan.files, ui))) return 1;
  const mode = answers.mode === undefined ? "" : `, approval mode ${answers.mode.trim()}`;
  ui.info(`Saved ${plan.provider.label} / ${answers.model.trim()}${mode} to ${paths.config}${plan.keyEnv ? `, ${plan.keyEnv} to ${paths.env}` : ""}.`);
  for (const note of plan.notes) ui.info(`(${note})`);
  return finish(ui, scripted, env);
}

/** Writes what changed; Ctrl-C is held off meanwhile so .env and config.yaml are never left half-updated. */
async function save(paths: HermesPaths, current: SetupFiles, next: SetupFiles, ui: Ui): Promise<boolean> {
  const hold = () => undefined;
  process.on("SIGINT", hold);
  try {
    await mkdir(paths.home, { recursive: true, mode: 0o700 });
    if (next.envText !== current.envText) await writeFileAtomically(paths.env, next.envText, 0o600);
    if (next.configText !== current.configText) {
      await writeFileAtomically(paths.config, next.configText, (await modeOf(paths.config)) ?? 0o600);
    }
    return true;
  } catch (error) {
    ui.error(`Could not write the Hermes settings in ${paths.home}: ${message(error)}`);
    return false;
  } finally {
    process.off("SIGINT", hold);
  }
}

/** The doctor (which also asks the endpoint whether it takes the key), then the editor snippets. */
async function finish(ui: Ui, scripted: boolean, env: EnvLike = process.env): Promise<number> {
  const lines: string[] = [];
  const warnings: string[] = [];
  const code = await runCheck({ out: (line) => lines.push(line), warn: (line) => warnings.push(line), env: { ...env } });
  for (const w of warnings) ui.warn(w);
  if (code !== 0) {
    ui.error(lines.join("\n"));
    ui.error("The settings are saved; fix the problem above and run `hermes-acp --check`.");
    return code;
  }
  ui.info(lines.join("\n"));
  if (!scripted) outro("Hermes is set up. Add it to your editor:");
  const launch = launchCommand();
  const snippets = editorSnippets(launch.command, launch.args);
  // Plain stdout, without clack's frame, so the JSON copies cleanly.
  plainUi.info(`\nZed (~/.config/zed/settings.json):\n${snippets.zed}\n\nJetBrains (~/.jetbrains/acp.json):\n${snippets.jetbrains}`);
  return 0;
}

function fromFlags(options: SetupOptions): SetupAnswers {
  const answers: SetupAnswers = { provider: options.provider ?? "", model: options.model ?? findProvider(options.provider ?? "")?.defaultModel ?? "" };
  if (options.baseUrl) answers.baseUrl = options.baseUrl;
  if (options.apiKey) answers.apiKey = options.apiKey;
  if (options.mode !== undefined) answers.mode = options.mode;
  return answers;
}

const OTHER = "\u0000other";

/** The interactive questions; undefined when the user cancels (Ctrl-C, or EOF on stdin). */
async function ask(paths: HermesPaths, current: SetupFiles, env: EnvLike): Promise<SetupAnswers | undefined> {
  const controller = new AbortController();
  const onEnd = () => controller.abort();
  // In raw mode Ctrl-D arrives as a byte, not as EOF; treat it like a closed terminal.
  const onData = (chunk: Buffer | string) => {
    if (typeof chunk === "string" ? chunk.includes("\u0004") : chunk.includes(4)) controller.abort();
  };
  // Between prompts the terminal is cooked, so Ctrl-C is a signal: cancel the wizard instead of dying mid-request.
  const onSigint = () => controller.abort();
  process.stdin.once("end", onEnd);
  process.stdin.on("data", onData);
  process.on("SIGINT", onSigint);
  const signal = controller.signal;
  try {
    intro(`Hermes setup — settings go to ${paths.home}`);
    const before = currentChoice(current.configText);
    const providerId = await select({
      signal,
      message: "Model provider",
      options: PROVIDERS.map((p) => ({ value: p.id, label: p.label, hint: p.local ? "runs on this machine" : p.keyEnv[0] })),
      initialValue: before.provider && PROVIDERS.some((p) => p.id === before.provider) ? before.provider : "openrouter",
      maxItems: 12,
    });
    if (isCancel(providerId)) return undefined;
    const provider = PROVIDERS.find((p) => p.id === providerId);
    if (!provider) return undefined;
    const answers: SetupAnswers = { provider: provider.id, model: "" };

    const urlNeed = needsBaseUrl(provider);
    if (urlNeed !== "no") {
      const url = await text({
        signal,
        message: urlNeed === "required" ? "Base URL of the OpenAI-compatible endpoint" : "Base URL",
        placeholder: "http://127.0.0.1:8000/v1",
        initialValue: provider.baseUrl,
        validate: (v) => (/^https?:\/\/\S+$/.test(v?.trim() ?? "") ? undefined : "Enter an http:// or https:// URL"),
      });
      if (isCancel(url)) return undefined;
      if (url.trim() !== provider.baseUrl) answers.baseUrl = url.trim();
    }

    const keyName = provider.keyEnv[0];
    if (keyName) {
      const have = existingKey(provider, current.envText, env) !== undefined;
      const key = await password({
        signal,
        message: `${keyName}${have ? " (Enter keeps the current key)" : provider.requiresKey ? "" : " (optional)"}`,
        validate: (v) => (!v?.trim() && provider.requiresKey && !have ? `${provider.label} needs an API key` : undefined),
      });
      if (isCancel(key)) return undefined;
      if (key?.trim()) answers.apiKey = key.trim();
    }

    let models = [...provider.models];
    if (models.length === 0) {
      // Not clack's spinner: it takes raw mode and turns Ctrl-C into process.exit(0).
      clackLog.step("Asking the endpoint for its models…");
      const listed = await listModels(answers.baseUrl ?? provider.baseUrl, answers.apiKey ?? existingKey(provider, current.envText, env), 4000, signal);
      if (signal.aborted) return undefined;
      clackLog.info(listed.ok ? `${listed.models.length} models found` : `Could not list models: ${listed.error}`);
      if (listed.ok) models = listed.models;
    }
    let model: string | symbol = OTHER;
    if (models.length > 0) {
      model = await select({
        signal,
        message: "Model",
        options: [...models.map((m) => ({ value: m, label: m })), { value: OTHER, label: "other…" }],
        initialValue: before.provider === provider.id && before.model && models.includes(before.model) ? before.model : (provider.defaultModel ?? models[0]),
        maxItems: 12,
      });
      if (isCancel(model)) return undefined;
    }
    if (model === OTHER) {
      model = await text({ signal, message: "Model name", validate: (v) => (v?.trim() ? undefined : "Enter a model name") });
      if (isCancel(model)) return undefined;
    }
    answers.model = String(model).trim();

    const mode = await select({
      signal,
      message: "Default approval mode for new sessions",
      options: MODES.map((m) => ({ value: m.id, label: m.name, hint: m.description })),
      initialValue: currentMode(current.configText) ?? "default",
    });
    if (isCancel(mode)) return undefined;
    answers.mode = mode;
    return answers;
  } finally {
    process.stdin.off("end", onEnd);
    process.stdin.off("data", onData);
    process.off("SIGINT", onSigint);
  }
}

const ModelList = z.object({ data: z.array(z.object({ id: z.string() })) });

/** GET <base>/models: proves the endpoint and key work, and lists models for the picker. Never throws. */
export async function listModels(
  baseUrl: string,
  apiKey: string | undefined,
  timeoutMs = 4000,
  cancel?: AbortSignal,
): Promise<{ ok: true; models: string[] } | { ok: false; error: string }> {
  const url = `${baseUrl.replace(/\/+$/, "")}/models`;
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    const response = await fetch(url, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      signal: cancel ? AbortSignal.any([cancel, timeout]) : timeout,
      redirect: "error", // a redirect could carry the key to another host
    });
    if (response.status === 401 || response.status === 403) return { ok: false, error: `${url} rejected the API key (HTTP ${response.status}).` };
    if (!response.ok) return { ok: false, error: `${url} answered HTTP ${response.status}.` };
    const parsed = ModelList.safeParse(await response.json().catch(() => null));
    return { ok: true, models: parsed.success ? parsed.data.data.map((m) => m.id) : [] };
  } catch (error) {
    return { ok: false, error: `could not reach ${url} (${message(error)}).` };
  }
}

/** Compiled binaries launch themselves; a source checkout is launched through bun with the entry file. */
export function launchCommand(): { command: string; args: string[] } {
  const compiled = Bun.main.startsWith("/$bunfs/") || /^[A-Z]:[\\/]~BUN[\\/]/i.test(Bun.main);
  return compiled ? { command: process.execPath, args: [] } : { command: process.execPath, args: [Bun.main] };
}

async function readCurrent(paths: HermesPaths): Promise<SetupFiles> {
  return { envText: await readOrEmpty(paths.env), configText: await readOrEmpty(paths.config) };
}

async function readOrEmpty(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if (typeof error === "object" && error !== null && "code" in error && error.code === "ENOENT") return "";
    throw error;
  }
}

async function modeOf(path: string): Promise<number | undefined> {
  return stat(path).then((s) => s.mode & 0o777, () => undefined);
}


function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
