import type { EventSink } from "../agent/events.ts";
import type { PermissionPort } from "../approvals/session-approver.ts";
import type { FileSystem, Shell } from "../tools/types.ts";

/** What a session needs from the editor, without knowing it speaks ACP. */
export type ClientPorts = {
  sink: EventSink;
  permissions: PermissionPort;
  fs: FileSystem;
  shell: Shell;
  /** Tells the editor the option list changed on the agent's side (e.g. /model). */
  configChanged(): Promise<void>;
};
