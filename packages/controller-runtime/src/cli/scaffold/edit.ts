// Edits of files the user owns too (src/manager.ts): a line goes in just above a scaffold marker,
// once. A file without the marker is left alone and the command says what to add by hand.
import { existsSync, readFileSync, writeFileSync } from "node:fs";

/** Inserts `line` above `marker` in `path` unless it is there; false when the marker is missing. */
export function insertAtMarker(path: string, marker: string, line: string): boolean {
  if (!existsSync(path)) return false;
  const text = readFileSync(path, "utf8");
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.trim() === marker);
  if (at < 0) return false;
  if (lines.some((l) => l.trim() === line.trim())) return true;
  const indent = /^\s*/.exec(lines[at] ?? "")?.[0] ?? "";
  lines.splice(at, 0, `${indent}${line.trim()}`);
  writeFileSync(path, lines.join("\n"));
  return true;
}
