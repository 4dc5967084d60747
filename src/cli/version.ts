import { VERSION } from "../version.ts";

/** `--version`: the version alone on stdout (not serve mode, so stdout is free). */
export function printVersion(): void {
  process.stdout.write(`${VERSION}\n`);
}
