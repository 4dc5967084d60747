import { createAgentApp } from "../protocol/server.ts";
import { stdioStream } from "../protocol/stdio.ts";
import { Services } from "../app/services.ts";
import { killAllProcessGroups } from "../util/process-groups.ts";
import { log } from "../util/log.ts";

/** Serves ACP on stdio until the editor closes stdin, then exits promptly with no child left behind. */
export async function serve(): Promise<never> {
  const services = new Services();
  const connection = createAgentApp({ services }).connect(stdioStream());
  log.debug("Starting hermes-acp ACP server");
  const shutdown = (code: number) => {
    killAllProcessGroups();
    services.close();
    process.exit(code);
  };
  process.on("SIGTERM", () => shutdown(0));
  process.on("SIGINT", () => shutdown(0));
  process.on("SIGHUP", () => shutdown(0));
  process.on("uncaughtException", (e) => log.error("uncaught exception (kept running)", e));
  process.on("unhandledRejection", (e) => log.error("unhandled rejection (kept running)", e));
  await connection.closed;
  shutdown(0);
  throw new Error("unreachable");
}
