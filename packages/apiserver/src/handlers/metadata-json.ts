// A stored object's metadata as JSON, cut out of the JSON kept at write time instead of written
// again: metadata-only lists and watches (controller-runtime's metadata client, OnlyMetadata)
// otherwise pay a JSON.stringify per item and cost more than the full list they shrink (issue 43).
import type { StoredObject } from "../storage/index.js";

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

/** The stored JSON's opening up to its metadata, when the object was written kind, apiVersion, metadata first. */
function metadataStart(stored: StoredObject): number {
  const { kind, apiVersion } = stored.obj;
  if (typeof kind !== "string" || typeof apiVersion !== "string") return -1;
  const head = `{"kind":${JSON.stringify(kind)},"apiVersion":${JSON.stringify(apiVersion)},"metadata":{`;
  return stored.json.startsWith(head) ? head.length - 1 : -1;
}

/**
 * `JSON.stringify(stored.obj.metadata)`, as a slice of `stored.json` (which is
 * `JSON.stringify(stored.obj)`, so the slice is the same text); undefined when the stored JSON
 * does not open with kind, apiVersion and metadata.
 */
export function storedMetadataJson(stored: StoredObject): string | undefined {
  const json = stored.json;
  const start = metadataStart(stored);
  if (start < 0) return undefined;
  // JSON.stringify's output: brackets count only outside strings, and a string ends at the
  // first quote not escaped by an odd run of backslashes.
  let depth = 0;
  for (let i = start; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === QUOTE) {
      let end = json.indexOf('"', i + 1);
      while (end > 0 && escaped(json, end)) end = json.indexOf('"', end + 1);
      if (end < 0) return undefined;
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      if (--depth === 0) return json.slice(start, i + 1);
    }
  }
  return undefined;
}

/** Whether the quote at `at` follows an odd run of backslashes. */
function escaped(json: string, at: number): boolean {
  let n = 0;
  for (let i = at - 1; json.charCodeAt(i) === BACKSLASH; i--) n++;
  return n % 2 === 1;
}
