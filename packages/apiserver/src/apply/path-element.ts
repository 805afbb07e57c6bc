// One step in a field path, as structured-merge-diff's fieldpath.PathElement: a field name
// (`f:`), a map-list item by its keys (`k:`), a set item by value (`v:`) or a list index (`i:`).
// Also their total order and the two text forms kube uses: FieldsV1 keys and conflict paths.

/** A JSON value as found in objects. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export type PathElement =
  | { readonly field: string }
  | { readonly key: readonly (readonly [string, Json])[] }
  | { readonly value: Json }
  | { readonly index: number };

export type Path = readonly PathElement[];

export class FieldPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FieldPathError";
  }
}

/** Builds a key element, sorting the key fields by name as kube does. */
export function keyElement(fields: Iterable<readonly [string, Json]>): PathElement {
  return { key: [...fields].sort((a, b) => compareStrings(a[0], b[0])) };
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function rank(v: Json): number {
  if (typeof v === "number") return 0;
  if (typeof v === "string") return 1;
  if (typeof v === "boolean") return 2;
  if (Array.isArray(v)) return 3;
  if (v !== null && typeof v === "object") return 4;
  return 5;
}

/** value.Compare: numbers < strings < booleans < lists < maps < null, then by content. */
export function compareValues(a: Json, b: Json): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 0:
      return (a as number) - (b as number) || 0;
    case 1:
      return compareStrings(a as string, b as string);
    case 2:
      return Number(a) - Number(b);
    case 3: {
      const la = a as Json[];
      const lb = b as Json[];
      for (let i = 0; i < la.length && i < lb.length; i++) {
        const c = compareValues(la[i], lb[i]);
        if (c !== 0) return c;
      }
      return la.length - lb.length;
    }
    case 4: {
      const ka = Object.keys(a as object).sort(compareStrings);
      const kb = Object.keys(b as object).sort(compareStrings);
      for (let i = 0; i < ka.length && i < kb.length; i++) {
        const c =
          compareStrings(ka[i], kb[i]) ||
          compareValues((a as Record<string, Json>)[ka[i]], (b as Record<string, Json>)[kb[i]]);
        if (c !== 0) return c;
      }
      return ka.length - kb.length;
    }
    default:
      return 0;
  }
}

function kindOf(pe: PathElement): number {
  if ("field" in pe) return 0;
  if ("key" in pe) return 1;
  if ("value" in pe) return 2;
  return 3;
}

/** PathElement.Compare: fields, then keys, then values, then indexes. */
export function comparePathElements(a: PathElement, b: PathElement): number {
  const ka = kindOf(a);
  const kb = kindOf(b);
  if (ka !== kb) return ka - kb;
  if ("field" in a) return compareStrings(a.field, (b as { field: string }).field);
  if ("key" in a) {
    const x = a.key;
    const y = (b as { key: readonly (readonly [string, Json])[] }).key;
    for (let i = 0; i < x.length && i < y.length; i++) {
      const c = compareStrings(x[i][0], y[i][0]) || compareValues(x[i][1], y[i][1]);
      if (c !== 0) return c;
    }
    return x.length - y.length;
  }
  if ("value" in a) return compareValues(a.value, (b as { value: Json }).value);
  return a.index - (b as { index: number }).index;
}

/** JSON with object keys sorted, as Go's encoders write maps. */
export function canonicalJson(v: Json): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(",")}]`;
  if (v !== null && typeof v === "object") {
    const keys = Object.keys(v).sort(compareStrings);
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v);
}

/** The FieldsV1 key of an element: `f:name`, `k:{"name":"c"}`, `v:"a"`, `i:0`. */
export function elementKey(pe: PathElement): string {
  if ("field" in pe) return `f:${pe.field}`;
  if ("key" in pe) {
    return `k:{${pe.key.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  if ("value" in pe) return `v:${canonicalJson(pe.value)}`;
  return `i:${pe.index}`;
}

/** Parses a FieldsV1 key back into an element. */
export function parseElementKey(text: string): PathElement {
  const body = text.slice(2);
  switch (text.slice(0, 2)) {
    case "f:":
      return { field: body };
    case "k:": {
      const parsed = parseJson(text, body);
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
        throw new FieldPathError(`key path element ${text} must be a JSON object`);
      }
      return keyElement(Object.entries(parsed));
    }
    case "v:":
      return { value: parseJson(text, body) };
    case "i:": {
      const n = Number(body);
      if (!Number.isInteger(n)) throw new FieldPathError(`invalid index path element ${text}`);
      return { index: n };
    }
    default:
      throw new FieldPathError(`unknown path element ${JSON.stringify(text)}`);
  }
}

function parseJson(text: string, body: string): Json {
  try {
    return JSON.parse(body) as Json;
  } catch {
    throw new FieldPathError(`invalid path element ${text}: not JSON`);
  }
}

/** value.ToString: strings quoted, numbers and booleans bare, lists and maps bracketed. */
function valueText(v: Json): string {
  if (v === null) return "null";
  if (typeof v === "string") return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(valueText).join(",")}]`;
  if (typeof v === "object") {
    const keys = Object.keys(v).sort(compareStrings);
    return `{${keys.map((k) => `${k}=${valueText(v[k])}`).join(",")}}`;
  }
  return String(v);
}

/** Path.String(): `.spec.containers[name="c"].image`, `.spec.tags[="a"]`, `.args[0]`. */
export function pathText(path: Path): string {
  let out = "";
  for (const pe of path) {
    if ("field" in pe) out += `.${pe.field}`;
    else if ("key" in pe) out += `[${pe.key.map(([k, v]) => `${k}=${valueText(v)}`).join(",")}]`;
    else if ("value" in pe) out += `[=${valueText(pe.value)}]`;
    else out += `[${pe.index}]`;
  }
  return out;
}
