// Approval for MCP tools that may have side effects.
//
// STOPGAP (issue #9): the Approver port (src/tools/types.ts) has no way to ask about an arbitrary tool.
// If the session's approver implements the optional `approveMcpTool` below, it is used. Otherwise we fall
// back to `approveCommand("<server>/<tool> <json args>")`, whose dangerous-command classifier approves
// almost every such string without asking: MCP tools then effectively run unasked, as in Hermes.
import type { ApprovalOutcome, Approver } from "../tools/types.ts";

export type McpToolApprovalRequest = {
  /** The server's name as configured/supplied, e.g. `github`. */
  server: string;
  /** The tool's own name on the server, e.g. `create_issue`. */
  tool: string;
  /** The name the model called, e.g. `mcp_github_create_issue`. */
  toolName: string;
  args: Record<string, unknown>;
  /** The server's hints; `destructiveHint` true means it may delete or overwrite. */
  destructive: boolean;
};

/** The optional capability a session approver can add to be asked about MCP tools properly. */
export interface McpToolApprover {
  approveMcpTool(request: McpToolApprovalRequest, toolCallId: string, signal: AbortSignal): Promise<ApprovalOutcome>;
}

function hasMcpToolApproval(approver: Approver): approver is Approver & McpToolApprover {
  return "approveMcpTool" in approver && typeof approver.approveMcpTool === "function";
}

const MAX_ARGS_CHARS = 500;

/** The command-style line shown when falling back to approveCommand. */
export function mcpApprovalCommand(request: McpToolApprovalRequest): string {
  const json = JSON.stringify(request.args);
  const shown = json.length > MAX_ARGS_CHARS ? `${json.slice(0, MAX_ARGS_CHARS - 3)}...` : json;
  return `${request.server}/${request.tool} ${shown}`;
}

export function approveMcpToolCall(
  approver: Approver,
  request: McpToolApprovalRequest,
  toolCallId: string,
  signal: AbortSignal,
): Promise<ApprovalOutcome> {
  if (hasMcpToolApproval(approver)) return approver.approveMcpTool(request, toolCallId, signal);
  return approver.approveCommand(mcpApprovalCommand(request), toolCallId, signal);
}
