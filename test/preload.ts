// Every test run gets its own HERMES_HOME and no provider keys: tests never touch ~/.hermes or real accounts.
import { setDefaultTimeout } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const home = mkdtempSync(join(tmpdir(), "hermes-acp-test-"));
process.env.HERMES_HOME = join(home, "hermes");
process.env.HOME = home;
for (const key of Object.keys(process.env)) {
  if (/(_API_KEY|_TOKEN|_BASE_URL)$/.test(key) || key === "HERMES_INFERENCE_PROVIDER" || key.startsWith("HERMES_YOLO")) {
    delete process.env[key];
  }
}
process.env.HERMES_ACP_LOG_LEVEL ??= "warn";

// bunfig's [test] timeout is not honoured by this Bun; loaded machines (CI: 2 cores) need more than 5 s.
setDefaultTimeout(20_000);
