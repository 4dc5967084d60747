import { Services } from "../app/services.ts";
import { runAcpAgent } from "../protocol/agent.ts";
import { batchedStdout } from "../protocol/stdio-writer.ts";
import { killAllProcessGroups } from "../util/process-groups.ts";
import { log } from "../util/log.ts";

/** Serves ACP on stdio until the editor closes stdin, then exits promptly with no child left behind. */
export async function serve(): Promise<never> {
  const services = new Services();
  const stdout = batchedStdout();
  const shutdown = (code: number): never => {
    stdout.flush();
    killAllProcessGroups();
    services.close();
    process.exit(code);
  };
  process.on("SIGTERM", () => shutdown(0));
  process.on("SIGINT", () => shutdown(0));
  process.on("SIGHUP", () => shutdown(0));
  process.on("uncaughtException", (e) => log.error("uncaught exception (kept running)", e));
  process.on("unhandledRejection", (e) => log.error("unhandled rejection (kept running)", e));
  await runAcpAgent(Bun.stdin.stream(), stdout.write, services, stdout.afterFlush);
  return shutdown(0);
}
