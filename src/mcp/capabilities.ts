// Kept apart from the MCP client code so `initialize` can read it without loading the SDK.

/** The MCP transports a client may pass in session/new (initialize `agentCapabilities.mcpCapabilities`). */
export const MCP_CAPABILITIES = { http: true, sse: true } as const;
