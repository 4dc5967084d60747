// The generic structured formatter: JSON results of tools without a dedicated formatter become Markdown bullets.
import {
  emptyish, failureText, first, isRecord, more, nonempty, parseJsonLoose, plural, pyJsonDumps, pyStr, truncateText, type Args,
} from "./display-util.ts";

const LIST_ITEM_KEYS = ["id", "status", "type", "scope", "quality_score", "score", "path", "url"];

const PRIORITY_KEYS = [
  "message", "status", "id", "task_id", "issue_id", "title", "name", "entity_id",
  "state", "service", "url", "path", "file_path", "count", "total", "next_run",
];

function formatValue(key: string, value: unknown, indent: number, maxDepth: number, maxItems: number): string[] {
  const pad = "  ".repeat(indent);
  const bullet = `${pad}- `;
  const label = key ? `**${key}:**` : "";
  const line = (text: string) => (label ? `${bullet}${label} ${text}` : `${bullet}${text}`);
  const child = (k: string, v: unknown, extra: number) => formatValue(k, v, indent + extra, maxDepth - 1, maxItems);

  if (emptyish(value)) return [];
  if (maxDepth <= 0) {
    const preview = typeof value === "object" && value !== null ? pyJsonDumps(value) : pyStr(value);
    return [line(truncateText(preview, 240))];
  }
  if (isRecord(value)) {
    const entries = Object.entries(value);
    const lines = [label ? `${bullet}${label}` : `${bullet}${entries.length} fields`];
    let shown = 0;
    for (const [k, v] of entries) {
      if (emptyish(v)) continue;
      lines.push(...child(k, v, 1));
      shown++;
      if (shown >= maxItems) {
        if (entries.length > shown) lines.push(`${pad}  - ... ${entries.length - shown} more fields`);
        break;
      }
    }
    return lines;
  }
  if (Array.isArray(value)) {
    const lines = [line(plural(value.length, "item"))];
    value.slice(0, maxItems).forEach((item, i) => {
      const idx = i + 1;
      if (isRecord(item)) {
        const headline = pyStr(first(item, ["content", "message", "title", "name", "id"])).trim();
        if (headline) {
          lines.push(`${pad}  ${idx}. ${truncateText(headline, 220)}`);
          for (const k of LIST_ITEM_KEYS) {
            if (!emptyish(item[k])) lines.push(`${pad}    - **${k}:** ${truncateText(pyStr(item[k]), 180)}`);
          }
        } else {
          lines.push(`${pad}  ${idx}.`);
          for (const [k, v] of Object.entries(item).slice(0, maxItems)) lines.push(...child(k, v, 2));
        }
      } else if (Array.isArray(item)) {
        lines.push(`${pad}  ${idx}. ${item.length} items`);
        for (const nested of item.slice(0, maxItems)) lines.push(...child("", nested, 2));
      } else {
        lines.push(`${pad}  ${idx}. ${truncateText(pyStr(item), 240)}`);
      }
    });
    if (value.length > maxItems) lines.push(`${pad}  ... ${value.length - maxItems} more items`);
    return lines;
  }
  return [line(truncateText(pyStr(value), 500))];
}

/** Markdown for any JSON result; non-JSON gives the raw text (when `fallbackToText`) or nothing. */
export function formatGenericStructured(tool: string, result: string, fallbackToText: boolean): string | undefined {
  const data = parseJsonLoose(result);
  if (Array.isArray(data)) {
    const lines = [`${tool}: ${plural(data.length, "item")}`];
    for (const item of data.slice(0, 12)) {
      if (typeof item === "object" && item !== null) lines.push(...formatValue("", item, 0, 2, 6));
      else lines.push(`- ${truncateText(pyStr(item), 240)}`);
    }
    return truncateText([...lines, ...more(data, 12, " items")].join("\n"), 5000);
  }
  if (!isRecord(data)) return fallbackToText ? nonempty(result) : undefined;
  const failed = failureText(data, `${tool} failed`);
  if (failed) return failed;
  const obj: Args = data;
  const lines = [obj.success === true ? `✅ ${tool} completed` : `${tool} result`];
  const seen = new Set(PRIORITY_KEYS.filter((k) => !emptyish(obj[k])));
  for (const k of PRIORITY_KEYS) if (seen.has(k)) lines.push(`- **${k}:** ${truncateText(pyStr(obj[k]), 500)}`);
  for (const [k, v] of Object.entries(obj)) {
    if (seen.has(k) || k === "success" || k === "raw" || k === "content" || k === "entries" || emptyish(v)) continue;
    lines.push(...formatValue(k, v, 0, 3, 8));
    if (lines.length >= 40) {
      lines.push("- ... more fields truncated");
      break;
    }
  }
  const content = obj.content;
  if (typeof content === "string" && content.trim()) lines.push("", truncateText(content.trim(), 1500));
  return truncateText(lines.join("\n"), 7000);
}
