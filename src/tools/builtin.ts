import type { AnyTool } from "./types.ts";
import { readFileTool } from "./read-file.ts";
import { writeFileTool } from "./write-file.ts";
import { patchTool } from "./patch.ts";
import { searchFilesTool } from "./search-files.ts";
import { terminalTool } from "./terminal.ts";
import { processTool } from "./process.ts";
import { todoTool } from "./todo.ts";

/** The hermes-acp toolset, with Hermes' names and argument shapes (hermes-behaviour §20.7). */
export function builtinTools(): AnyTool[] {
  return [readFileTool, writeFileTool, patchTool, searchFilesTool, terminalTool, processTool, todoTool];
}
