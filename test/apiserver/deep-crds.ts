// CRDs whose schemas nest thousands of levels deep, as JSON text (V8's JSON.stringify recurses and
// gives out near 4 000 levels; JSON.parse does not), and a comparison of such trees that does not
// recurse either: for crd-deep-schema.test.ts and crd-deep-protobuf.test.ts.

/**
 * A CRD's JSON text serving `plural` in `group` with the schema text `spec` under `spec`, keys in
 * the Go structs' order (kube's JSON answers' order, which the embedded server's keep as sent).
 */
export function deepCrdText(group: string, plural: string, kind: string, spec: string): string {
  return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"${plural}.${group}"},"spec":{"group":"${group}","names":{"plural":"${plural}","kind":"${kind}"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":${spec}}}}}]}}`;
}

/** `open` `levels` times around `leaf`, then `close` as many times. */
export const around = (levels: number, open: string, leaf: string, close: string) =>
  `${open.repeat(levels)}${leaf}${close.repeat(levels)}`;

/**
 * Where two JSON trees first differ (values, or keys and, with `orderedKeys`, their order below
 * the top); undefined when they do not.
 */
export function firstDifference(actual: unknown, expected: unknown, orderedKeys = true): string | undefined {
  const stack: [unknown, unknown, string][] = [[actual, expected, ""]];
  while (stack.length > 0) {
    const [a, e, path] = stack.pop()!;
    if (a === e) continue;
    const at = path.length > 200 ? `…${path.slice(-200)}` : path || "the top";
    if (a === null || e === null || typeof a !== "object" || typeof e !== "object")
      return `at ${at}: ${JSON.stringify(a)} is not ${JSON.stringify(e)}`;
    if (Array.isArray(a) !== Array.isArray(e)) return `at ${at}: an array and an object`;
    const ka = Object.keys(a);
    const ke = Object.keys(e);
    // The top's keys in any order: a decoder writes apiVersion before kind, kube's JSON kind first.
    if (path === "" || !orderedKeys) {
      ka.sort();
      ke.sort();
    }
    if (ka.join() !== ke.join()) return `at ${at}: keys ${ka} are not ${ke}`;
    for (const k of ka)
      stack.push([(a as Record<string, unknown>)[k], (e as Record<string, unknown>)[k], `${path}.${k}`]);
  }
  return undefined;
}
