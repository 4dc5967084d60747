#!/usr/bin/env bun
import { defineCommand, runMain } from "citty";
import { VERSION } from "./version.ts";

// The serve path imports only what answering `initialize` needs; everything else loads on demand.
const main = defineCommand({
  meta: { name: "hermes-acp", version: VERSION, description: "Run the Hermes coding agent as an ACP stdio server." },
  args: {
    version: { type: "boolean", description: "Print the version and exit" },
    check: { type: "boolean", description: "Verify the installation (config, state.db, provider credentials)" },
    setup: { type: "boolean", description: "Configure a model provider (interactive, or with the flags below)" },
    provider: { type: "string", description: "--setup: provider id (openrouter, anthropic, custom, ollama, …)" },
    model: { type: "string", description: "--setup: model name" },
    "api-key": { type: "string", description: "--setup: API key, saved to $HERMES_HOME/.env (or export the provider's key variable)" },
    "base-url": { type: "string", description: "--setup: endpoint URL (required for custom)" },
    mode: { type: "string", description: "--setup: default approval mode for new sessions (default, accept_edits, dont_ask)" },
  },
  async run({ args }) {
    if (args.version) {
      const { printVersion } = await import("./cli/version.ts");
      printVersion();
      return;
    }
    if (args.check) {
      const { runCheck } = await import("./cli/check.ts");
      process.exit(await runCheck());
    }
    if (args.setup) {
      const { runSetup } = await import("./cli/setup.ts");
      process.exit(await runSetup({ provider: args.provider, model: args.model, apiKey: args["api-key"], baseUrl: args["base-url"], mode: args.mode }));
    }
    const { serve } = await import("./cli/serve.ts");
    await serve();
  },
});

// `hermes-acp acp` (the registry's launch form) is the same as no arguments.
const argv = process.argv.slice(2).filter((a, i) => !(i === 0 && a === "acp"));
await runMain(main, { rawArgs: argv });
