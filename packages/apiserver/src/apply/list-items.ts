// How list items are named in field paths: by their keys in a map list, by value in a set, and
// by index only in atomic lists (which are never walked item by item).
import { elementKey, type Json, keyElement, type Path, type PathElement, pathText } from "./path-element.js";
import type { ListType } from "./type-model.js";

/** An object that does not fit its schema's merge rules (SMD's typed-conversion errors). */
export class ApplyTypeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ApplyTypeError";
  }
}

export function listItemElement(t: ListType, item: Json, index: number): PathElement {
  if (t.listType === "atomic") return { index };
  if (t.listType === "map") {
    if (item === null) throw new ApplyTypeError("associative list with keys may not have a null element");
    if (typeof item !== "object" || Array.isArray(item)) {
      throw new ApplyTypeError("associative list with keys may not have non-map elements");
    }
    const fields: [string, Json][] = [];
    for (const k of t.keys) {
      if (Object.hasOwn(item, k)) fields.push([k, item[k]]);
      else if (Object.hasOwn(t.keyDefaults, k)) fields.push([k, t.keyDefaults[k]]);
      else {
        throw new ApplyTypeError(
          `associative list with keys has an element that omits key field ${JSON.stringify(k)} (and doesn't have default value)`,
        );
      }
    }
    return keyElement(fields);
  }
  if (item === null)
    throw new ApplyTypeError("associative list without keys has an element that's an explicit null");
  if (Array.isArray(item)) throw new ApplyTypeError("not supported: associative list with lists as elements");
  if (typeof item === "object")
    throw new ApplyTypeError("associative list without keys has an element that's a map type");
  return { value: item };
}

export interface IndexedItem {
  readonly pe: PathElement;
  /** Every item with this element, in list order (more than one only in invalid lists). */
  readonly values: Json[];
}

/**
 * The items of a list at `path` by element key, in first-seen order. Errors name the path and
 * item as SMD does; `unique` rejects two items with one key (an apply configuration must not).
 */
export function indexList(
  t: ListType,
  list: readonly Json[],
  path: Path,
  unique = false,
): Map<string, IndexedItem> {
  const out = new Map<string, IndexedItem>();
  list.forEach((item, i) => {
    let pe: PathElement;
    try {
      pe = listItemElement(t, item, i);
    } catch (e) {
      if (e instanceof ApplyTypeError)
        throw new ApplyTypeError(`${pathText(path)}: element ${i}: ${e.message}`);
      throw e;
    }
    const k = elementKey(pe);
    const seen = out.get(k);
    if (seen && unique) {
      throw new ApplyTypeError(`${pathText(path)}: duplicate entries for key ${pathText([pe])}`);
    }
    if (seen) seen.values.push(item);
    else out.set(k, { pe, values: [item] });
  });
  return out;
}
