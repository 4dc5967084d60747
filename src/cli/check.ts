import { accessSync, constants, existsSync } from "node:fs";
import { Services } from "../app/services.ts";
import { resolveRuntime } from "../llm/resolve.ts";
import { mask } from "../util/redact.ts";
import { VERSION } from "../version.ts";

type Problem = { what: string; fix: string };

/** `--check`: one line with OK and exit 0, or each problem with its fix and exit 1. Keys are masked. */
export async function runCheck(out: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<number> {
  const problems: Problem[] = [];
  const services = await new Services().load();
  const notes: string[] = [];

  try {
    await import("@agentclientprotocol/sdk/unstable");
  } catch (e) {
    problems.push({ what: `The ACP SDK failed to load: ${String(e)}`, fix: "Reinstall hermes-acp." });
  }

  const cfg = services.config();
  if (!cfg.ok) {
    problems.push({ what: cfg.error.message, fix: cfg.error.fix ?? `Fix or remove ${services.paths.config}.` });
  }

  try {
    const store = services.store();
    store.integrityCheck();
    accessSync(services.paths.stateDb, constants.W_OK);
    notes.push(`state.db ${services.paths.stateDb}`);
  } catch (e) {
    problems.push({
      what: `state.db cannot be opened for writing at ${services.paths.stateDb}: ${e instanceof Error ? e.message : String(e)}`,
      fix: `Check the permissions of ${services.paths.home} (or set HERMES_HOME to a writable directory).`,
    });
  } finally {
    services.close();
  }

  if (cfg.ok) {
    const r = resolveRuntime({ config: cfg.config, env: services.env });
    if (!r.ok) {
      problems.push({ what: r.error, fix: "Run `hermes-acp --setup`, or add a key such as OPENROUTER_API_KEY to " + services.paths.env });
    } else {
      const key = r.runtime.apiKey ? `key ${mask(r.runtime.apiKey)}` : "no key needed";
      notes.push(`provider ${r.runtime.provider}, model ${r.runtime.model}, ${key}`);
    }
  }

  if (problems.length === 0) {
    out(`Hermes ACP check OK (v${VERSION}; ${notes.join("; ")})`);
    return 0;
  }
  out(`Hermes ACP check found ${problems.length} problem${problems.length === 1 ? "" : "s"}:`);
  for (const p of problems) out(`- ${p.what}\n  Fix: ${p.fix}`);
  if (!existsSync(services.paths.home)) out(`(HERMES_HOME is ${services.paths.home}, which does not exist yet.)`);
  return 1;
}
