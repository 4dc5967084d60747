import type { HermesConfig } from "../config/schema.ts";
// One normalised description of an MCP server, whether the editor supplied it (ACP `mcpServers`) or
// config.yaml `mcp_servers:` did. Everything downstream (pool, tools) works from this shape only.
import { createHash } from "node:crypto";
import { z } from "zod";
import type { McpServerConfig } from "../config/schema.ts";

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
/** Hermes' default per-call timeout for MCP tools (config `timeout`, seconds). */
export const DEFAULT_CALL_TIMEOUT_MS = 120_000;

type SpecCommon = {
  /** The name the user gave the server; tool names derive from it. */
  name: string;
  connectTimeoutMs: number;
  callTimeoutMs: number;
};

export type StdioServerSpec = SpecCommon & {
  transport: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Working directory of the server process; absent = the agent's own. */
  cwd?: string;
};

export type RemoteServerSpec = SpecCommon & {
  transport: "http" | "sse";
  url: string;
  headers: Record<string, string>;
};

export type McpServerSpec = StdioServerSpec | RemoteServerSpec;

export type SpecProblem = { name: string; error: string };

const nameValue = z.object({ name: z.string(), value: z.string() });

// ACP McpServer variants (acp-protocol §4.2): stdio has no `type`; http/sse carry it.
const acpStdioSchema = z.object({
  type: z.literal("stdio").optional(),
  name: z.string().min(1),
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: z.array(nameValue).default([]),
});
const acpRemoteSchema = z.object({
  type: z.enum(["http", "sse"]),
  name: z.string().min(1),
  url: z.url(),
  headers: z.array(nameValue).default([]),
});
const acpServerSchema = z.union([acpRemoteSchema, acpStdioSchema]);

const pairsToRecord = (pairs: { name: string; value: string }[]): Record<string, string> =>
  Object.fromEntries(pairs.map((p) => [p.name, p.value]));

const defaults = (name: string) => ({
  name,
  connectTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS,
  callTimeoutMs: DEFAULT_CALL_TIMEOUT_MS,
});

/**
 * ACP `mcpServers` (session/new, load, resume, fork) → specs. Invalid entries are reported, not thrown:
 * one malformed server must not fail the session. Stdio servers run in `cwd` (the session's) when given.
 */
export function specsFromAcp(mcpServers: unknown, cwd?: string): { specs: McpServerSpec[]; problems: SpecProblem[] } {
  const specs: McpServerSpec[] = [];
  const problems: SpecProblem[] = [];
  const list: unknown[] = Array.isArray(mcpServers) ? mcpServers : [];
  for (const raw of list) {
    const parsed = acpServerSchema.safeParse(raw);
    if (!parsed.success) {
      const name = z.object({ name: z.string() }).safeParse(raw);
      problems.push({ name: name.success ? name.data.name : "(unnamed)", error: z.prettifyError(parsed.error) });
      continue;
    }
    const s = parsed.data;
    if ("url" in s) {
      specs.push({ ...defaults(s.name), transport: s.type, url: s.url, headers: pairsToRecord(s.headers) });
    } else {
      specs.push({
        ...defaults(s.name),
        transport: "stdio",
        command: s.command,
        args: s.args,
        env: pairsToRecord(s.env),
        ...(cwd ? { cwd } : {}),
      });
    }
  }
  return { specs, problems };
}

const secondsToMs = (seconds: number | undefined, fallback: number): number =>
  typeof seconds === "number" && seconds > 0 ? Math.round(seconds * 1000) : fallback;

// Hermes treats any `url` as streamable HTTP; `transport: sse` is our opt-in for legacy servers.
const configTransportSchema = z.object({ transport: z.enum(["http", "sse", "streamable_http", "stdio"]).optional() });

/** config.yaml `mcp_servers:` (already schema-validated) → specs; `enabled: false` entries are skipped. */
export function specsFromConfig(servers: Record<string, McpServerConfig> | undefined): { specs: McpServerSpec[]; problems: SpecProblem[] } {
  const specs: McpServerSpec[] = [];
  const problems: SpecProblem[] = [];
  for (const [name, entry] of Object.entries(servers ?? {})) {
    if (entry.enabled === false) continue;
    const common = {
      name,
      connectTimeoutMs: secondsToMs(entry.connect_timeout, DEFAULT_CONNECT_TIMEOUT_MS),
      callTimeoutMs: secondsToMs(entry.timeout, DEFAULT_CALL_TIMEOUT_MS),
    };
    const declared = configTransportSchema.safeParse(entry);
    const transport = declared.success ? declared.data.transport : undefined;
    if (entry.command) {
      specs.push({ ...common, transport: "stdio", command: entry.command, args: entry.args ?? [], env: entry.env ?? {} });
    } else if (entry.url) {
      if (!z.url().safeParse(entry.url).success) {
        problems.push({ name, error: `url is not a valid URL: ${entry.url}` });
        continue;
      }
      specs.push({ ...common, transport: transport === "sse" ? "sse" : "http", url: entry.url, headers: entry.headers ?? {} });
    } else {
      problems.push({ name, error: "needs either `command` (stdio) or `url` (HTTP)" });
    }
  }
  return { specs, problems };
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, v]) => [k, canonical(v)]),
    );
  }
  return value;
}

/**
 * Pool key: what makes two specs the same running server. The display name and timeouts are left out,
 * so the same command under two names shares one process.
 */
export function specKey(spec: McpServerSpec): string {
  const identity =
    spec.transport === "stdio"
      ? { transport: spec.transport, command: spec.command, args: spec.args, env: spec.env, cwd: spec.cwd ?? null }
      : { transport: spec.transport, url: spec.url, headers: spec.headers };
  return createHash("sha256").update(JSON.stringify(canonical(identity))).digest("hex").slice(0, 32);
}

/** Hermes' rule (tools/mcp_tool.py): every character outside [A-Za-z0-9_] becomes `_`, case kept. */
export function sanitizeMcpName(value: string): string {
  return value.replace(/[^A-Za-z0-9_]/g, "_");
}

/** Where the server lives, for status lines and errors (never the env or headers: they hold secrets). */
export function describeSpec(spec: McpServerSpec): string {
  if (spec.transport === "stdio") return [spec.command, ...spec.args].join(" ");
  // Query strings often carry API keys.
  const url = new URL(spec.url);
  return `${spec.transport} ${url.origin}${url.pathname}`;
}

/** Specs built from the config and the client's list, config first; a name already taken is skipped. */
export function sessionSpecs(
  config: HermesConfig | undefined,
  acpServers: unknown,
  cwd?: string,
): { specs: McpServerSpec[]; problems: SpecProblem[] } {
  const fromConfig = config && config.acp.skip_configured_mcp !== true ? specsFromConfig(config.mcp_servers) : { specs: [], problems: [] };
  const fromClient = specsFromAcp(acpServers, cwd);
  const names = new Set<string>();
  const specs: McpServerSpec[] = [];
  for (const spec of [...fromConfig.specs, ...fromClient.specs]) {
    if (names.has(spec.name)) continue;
    names.add(spec.name);
    specs.push(spec);
  }
  return { specs, problems: [...fromConfig.problems, ...fromClient.problems] };
}
