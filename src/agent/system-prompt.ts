import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { arch, platform, release } from "node:os";
import basePrompt from "./system-prompt.md" with { type: "text" };

/** Project instruction files, in the order agents conventionally read them. */
const CONTEXT_FILES = ["AGENTS.md", "HERMES.md", ".hermes.md", "CLAUDE.md", ".cursorrules"];
const MAX_CONTEXT_CHARS = 20_000;

export type PromptTool = { name: string; description: string };

function projectContext(cwd: string): string {
  const parts: string[] = [];
  let budget = MAX_CONTEXT_CHARS;
  for (const name of CONTEXT_FILES) {
    const path = join(cwd, name);
    if (!existsSync(path) || budget <= 0) continue;
    try {
      let text = readFileSync(path, "utf8").trim();
      if (text.length > budget) text = `${text.slice(0, budget)}\n[... truncated ...]`;
      budget -= text.length;
      parts.push(`## ${name}\n\n${text}`);
    } catch {
      // An unreadable context file is not worth failing a turn for.
    }
  }
  return parts.length ? `\n\n# Project instructions\n\n${parts.join("\n\n")}` : "";
}

export function buildSystemPrompt(input: { cwd: string; model: string; tools: PromptTool[]; now?: Date }): string {
  const now = input.now ?? new Date();
  const toolLines = input.tools.map((t) => `- ${t.name}: ${t.description.split("\n")[0]}`).join("\n");
  return [
    basePrompt.trim(),
    "",
    "# Environment",
    `- Working directory: ${input.cwd}`,
    `- Operating system: ${platform()} ${release()} (${arch()})`,
    `- Date: ${now.toISOString().slice(0, 10)}`,
    `- Model: ${input.model}`,
    "",
    "# Available tools",
    toolLines,
  ].join("\n") + projectContext(input.cwd);
}
