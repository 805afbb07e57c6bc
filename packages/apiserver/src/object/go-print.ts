// Go's fmt verbs applied to values decoded from JSON into interface{} (maps, slices, strings,
// int64, float64, bool, nil), for messages that quote kube's: %v (`map[a:1 b:[x y]]`) and %#v
// (`map[string]interface {}{"a":1}`). Iterative: quoted values may nest as deep as bodies may.

/** Literal text among the values still to print. */
class Text {
  constructor(readonly text: string) {}
}

/** %v of a float64 (or an int64 when integral), as Go prints JSON numbers. */
export function goNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  const abs = Math.abs(n);
  if (abs !== 0 && (abs >= 1e21 || abs < 1e-4)) {
    const [mant, exp] = n.toExponential().split("e");
    const e = Number(exp);
    return `${mant}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  return String(n);
}

function print(v: unknown, sharp: boolean): string {
  const out: string[] = [];
  const stack: unknown[] = [v];
  while (stack.length > 0) {
    const x = stack.pop();
    if (x instanceof Text) out.push(x.text);
    else if (x === null || x === undefined) out.push(sharp ? "interface {}(nil)" : "<nil>");
    else if (Array.isArray(x)) {
      out.push(sharp ? "[]interface {}{" : "[");
      stack.push(new Text(sharp ? "}" : "]"));
      for (let i = x.length - 1; i >= 0; i--) {
        stack.push(x[i]);
        if (i > 0) stack.push(new Text(sharp ? ", " : " "));
      }
    } else if (typeof x === "object") {
      const o = x as Record<string, unknown>;
      const keys = Object.keys(o).sort();
      out.push(sharp ? "map[string]interface {}{" : "map[");
      stack.push(new Text(sharp ? "}" : "]"));
      for (let i = keys.length - 1; i >= 0; i--) {
        stack.push(o[keys[i]], new Text(sharp ? `${JSON.stringify(keys[i])}:` : `${keys[i]}:`));
        if (i > 0) stack.push(new Text(sharp ? ", " : " "));
      }
    } else if (typeof x === "number") out.push(goNumber(x));
    else if (typeof x === "string" && sharp) out.push(JSON.stringify(x));
    else out.push(String(x));
  }
  return out.join("");
}

/** Go's %v. */
export function goV(v: unknown): string {
  return print(v, false);
}

/** Go's %#v. */
export function goSharp(v: unknown): string {
  return print(v, true);
}
