// `initialize` without the SDK: the request is read with plain checks (no zod on the startup path) and the
// client's capabilities are kept as the few flags the agent acts on.

export type InitializeRequestParams = { protocolVersion?: unknown; clientCapabilities?: unknown; clientInfo?: unknown };

/** The client capabilities hermes-acp acts on (acp-protocol §2.1). Omitted means unsupported. */
export type ClientCaps = {
  readTextFile: boolean;
  writeTextFile: boolean;
  terminal: boolean;
  notices: boolean;
  compaction: boolean;
  booleanOptions: boolean;
};

export const NO_CAPS: ClientCaps = { readTextFile: false, writeTextFile: false, terminal: false, notices: false, compaction: false, booleanOptions: false };

function obj(v: unknown): Record<string, unknown> {
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

// Support markers are objects: `{}` means supported, null/absent means not.
const marker = (v: unknown) => v !== null && typeof v === "object";

export function readClientCaps(params: InitializeRequestParams): ClientCaps {
  const caps = obj(params.clientCapabilities);
  const fs = obj(caps.fs);
  const session = obj(caps.session);
  const configOptions = obj(session.configOptions);
  return {
    readTextFile: fs.readTextFile === true,
    writeTextFile: fs.writeTextFile === true,
    terminal: caps.terminal === true,
    notices: marker(session.notices),
    compaction: marker(session.compaction),
    booleanOptions: marker(configOptions.boolean),
  };
}

export function clientName(params: InitializeRequestParams): string {
  const info = obj(params.clientInfo);
  return typeof info.name === "string" ? info.name : "unknown client";
}
