// Duplicate keys in a JSON body: JSON.parse silently keeps the last one, kube's strict decoder
// reports them (`duplicate field "spec.replicas"`). A small single-pass scanner over the raw
// text; it assumes the text is valid JSON (parse it first) and allocates only for keys.

interface ObjectFrame {
  kind: "object";
  path: string;
  keys: Set<string>;
  key: string;
}

interface ArrayFrame {
  kind: "array";
  path: string;
  index: number;
}

type Frame = ObjectFrame | ArrayFrame;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The paths of duplicated keys (`spec.replicas`, `items[0].name`), in the order they appear. */
export function findDuplicateFields(jsonText: string): string[] {
  const found: string[] = [];
  const stack: Frame[] = [];
  // Whether the next string in the current object is a key (after `{` or `,`).
  let expectKey = false;
  const n = jsonText.length;
  for (let i = 0; i < n; i++) {
    const c = jsonText.charCodeAt(i);
    switch (c) {
      case 0x7b: // {
        stack.push({ kind: "object", path: valuePath(stack), keys: new Set(), key: "" });
        expectKey = true;
        break;
      case 0x5b: // [
        stack.push({ kind: "array", path: valuePath(stack), index: 0 });
        break;
      case 0x7d: // }
      case 0x5d: // ]
        stack.pop();
        expectKey = false;
        break;
      case 0x2c: {
        // ,
        const top = stack[stack.length - 1];
        if (top?.kind === "array") top.index++;
        else expectKey = true;
        break;
      }
      case QUOTE: {
        const end = stringEnd(jsonText, i);
        if (expectKey) {
          const top = stack[stack.length - 1] as ObjectFrame;
          const raw = jsonText.slice(i + 1, end);
          const key = raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw;
          if (top.keys.has(key)) found.push(join(top.path, key));
          top.keys.add(key);
          top.key = key;
          expectKey = false;
        }
        i = end;
        break;
      }
    }
  }
  return found;
}

/** The index of the quote closing the string that opens at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const q = text.indexOf('"', i);
    if (q < 0) return text.length;
    // Count the backslashes before the quote: an odd number escapes it.
    let b = q - 1;
    while (b > start && text.charCodeAt(b) === BACKSLASH) b--;
    if ((q - 1 - b) % 2 === 0) return q;
    i = q + 1;
  }
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/** The path of the value about to start, from the innermost container. */
function valuePath(stack: Frame[]): string {
  const top = stack[stack.length - 1];
  if (top === undefined) return "";
  return top.kind === "array" ? `${top.path}[${top.index}]` : join(top.path, top.key);
}
