import type * as acp from "@agentclientprotocol/sdk/unstable";
import { VERSION } from "../version.ts";

export const SETUP_AUTH_METHOD_ID = "hermes-setup";

/** hermes-behaviour §5.2: the provider's own method when a credential exists, and always the terminal setup. */
export function authMethods(provider: string | null): acp.AuthMethod[] {
  const methods: acp.AuthMethod[] = [];
  if (provider) {
    methods.push({
      id: provider,
      name: `${provider} runtime credentials`,
      description: `Authenticate Hermes using the currently configured ${provider} runtime credentials.`,
    });
  }
  methods.push({
    id: SETUP_AUTH_METHOD_ID,
    name: "Configure Hermes provider",
    description:
      "Open Hermes' interactive model/provider setup in a terminal. Use this when Hermes has not been configured on this machine yet.",
    type: "terminal",
    args: ["--setup"],
  });
  return methods;
}

import { MCP_CAPABILITIES } from "../mcp/capabilities.ts";

/** MCP transports accepted in session/new, besides stdio (mandatory, always on). */
export const MCP_TRANSPORTS = { http: MCP_CAPABILITIES.http, sse: MCP_CAPABILITIES.sse };

export function initializeResponse(provider: string | null, mcp = MCP_TRANSPORTS): acp.InitializeResponse {
  return {
    protocolVersion: 1,
    agentInfo: { name: "hermes-acp", title: "Hermes", version: VERSION },
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: mcp,
      sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, fork: {} },
    },
    authMethods: authMethods(provider),
  };
}
