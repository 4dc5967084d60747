import { z } from "zod";
import type { ToolSpec } from "../llm/types.ts";
import { isRecord } from "./display-util.ts";
import type { AnyTool } from "./types.ts";

export type ParsedCall = { ok: true; tool: AnyTool; args: unknown } | { ok: false; error: string };

/** Drops what providers choke on or that only adds noise: `$schema` and the safe-integer bounds of `.int()`. */
function cleanSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(cleanSchema);
  if (!isRecord(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === "$schema") continue;
    if (k === "maximum" && v === Number.MAX_SAFE_INTEGER) continue;
    if (k === "minimum" && v === Number.MIN_SAFE_INTEGER) continue;
    out[k] = cleanSchema(v);
  }
  return out;
}

function describeType(v: unknown): string {
  return v === null ? "null" : Array.isArray(v) ? "an array" : typeof v === "string" ? "a string" : `a ${typeof v}`;
}

function issuePath(path: PropertyKey[]): string {
  let out = "";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || "(arguments)";
}

function issueText(issue: z.core.$ZodIssue): string {
  const message = issue.message.replace(/^Invalid input: /, "").replace(/, received undefined$/, " (missing)");
  return `${issuePath(issue.path)}: ${message}`;
}

/** The tools offered to the model, and the gate that turns a model's call into validated arguments. */
export class ToolRegistry {
  private readonly byName = new Map<string, AnyTool>();
  private cachedSpecs: ToolSpec[] | undefined;

  constructor(tools: AnyTool[]) {
    for (const tool of tools) {
      if (this.byName.has(tool.name)) throw new Error(`Duplicate tool name: ${tool.name}`);
      this.byName.set(tool.name, tool);
    }
  }

  list(): AnyTool[] {
    return [...this.byName.values()];
  }

  get(name: string): AnyTool | undefined {
    return this.byName.get(name);
  }

  /** JSON-schema specs for the model, built once. */
  specs(): ToolSpec[] {
    this.cachedSpecs ??= this.list().map((tool) => {
      const schema = cleanSchema(z.toJSONSchema(tool.parameters, { io: "input" }));
      return { name: tool.name, description: tool.description, parameters: isRecord(schema) ? schema : {} };
    });
    return this.cachedSpecs;
  }

  /** Model arguments (a JSON string) → validated args, or an error worded for the model. */
  parseCall(name: string, rawArguments: string): ParsedCall {
    const tool = this.byName.get(name);
    if (!tool) {
      return { ok: false, error: `Unknown tool '${name}'. Available tools: ${[...this.byName.keys()].join(", ")}.` };
    }
    let value: unknown = {};
    if (rawArguments.trim()) {
      try {
        value = JSON.parse(rawArguments);
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        return { ok: false, error: `Invalid JSON arguments for ${name}: ${why}. Send a JSON object.` };
      }
      // Some models double-encode: a JSON string holding the object.
      if (typeof value === "string") {
        try {
          const inner: unknown = JSON.parse(value);
          if (isRecord(inner)) value = inner;
        } catch {
          // keep the string; validation below explains
        }
      }
    }
    if (!isRecord(value)) {
      return { ok: false, error: `Invalid arguments for ${name}: expected a JSON object, received ${describeType(value)}. Send a JSON object.` };
    }
    const parsed = tool.parameters.safeParse(value);
    if (!parsed.success) {
      return { ok: false, error: `Invalid arguments for ${name}: ${parsed.error.issues.map(issueText).join(";\n")}` };
    }
    return { ok: true, tool, args: parsed.data };
  }
}
