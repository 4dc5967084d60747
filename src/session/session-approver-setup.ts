import { homedir, tmpdir } from "node:os";
import type { Services } from "../app/services.ts";
import { SessionApprover, type PermissionPort } from "../approvals/session-approver.ts";
import type { Mode } from "../approvals/edit-policy.ts";
import { addToCommandAllowlist } from "../config/allowlist.ts";

/** HERMES_YOLO_MODE=1 or config.yaml `approvals.mode: off`: allow all but hardline commands and sensitive paths. */
function yoloMode(services: Services): boolean {
  if (/^(1|true|yes)$/i.test(services.env.HERMES_YOLO_MODE ?? "")) return true;
  const cfg = services.config();
  return cfg.ok && cfg.config.approvals.mode === "off";
}

/** config.yaml `approvals.timeout` (seconds); an unanswered prompt denies after it. */
function approvalTimeoutMs(services: Services): number | undefined {
  const cfg = services.config();
  const seconds = cfg.ok ? cfg.config.approvals?.timeout : undefined;
  return typeof seconds === "number" && seconds > 0 ? seconds * 1000 : undefined;
}

/** The session's approver, wired to its settings, the config allowlist and the editor's permission prompts. */
export function createSessionApprover(
  services: Services,
  port: PermissionPort,
  session: { mode(): Mode; cwd(): string },
): SessionApprover {
  return new SessionApprover({
    port,
    getMode: session.mode,
    getCwd: session.cwd,
    home: homedir(),
    hermesHome: services.paths.home,
    tmpDir: tmpdir(),
    commandAllowlist: () => {
      const c = services.config();
      return c.ok ? c.config.command_allowlist : [];
    },
    persistAllowlist: (pattern) => addToCommandAllowlist(services.paths.config, pattern),
    yolo: yoloMode(services),
    sudoPasswordSet: Boolean(services.env.SUDO_PASSWORD),
    timeoutMs: approvalTimeoutMs(services),
  });
}
