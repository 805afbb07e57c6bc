// A CRD whose schema holds an enum of 100 000 values (a 2 MB body), and objects of its kind with
// values in and out of it: the server must keep answering everyone else while it reads, checks,
// serves and enforces such a schema (issue #40; a stall is any answer slower than 1 s).
import type { Random } from "./random.js";

const VALUES = 100_000;
const PLURAL = "enums";

let crdBody: string | undefined;

/** The CRD, built once: 2 MB of JSON. */
function largeEnumCRD(group: string): string {
  crdBody ??= JSON.stringify({
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${PLURAL}.${group}` },
    spec: {
      group,
      scope: "Namespaced",
      names: { plural: PLURAL, kind: "Enum" },
      versions: [
        {
          name: "v1",
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: "object",
              properties: {
                spec: {
                  type: "object",
                  properties: {
                    pick: { type: "string", enum: Array.from({ length: VALUES }, (_, i) => `value-${i}`) },
                  },
                },
              },
            },
          },
        },
      ],
    },
  });
  return crdBody;
}

/** One request of the large-enum shape: the CRD itself, or an object of its kind, in `group`. */
export function largeEnumRequest(
  r: Random,
  headers: Record<string, string>,
  group: string,
): { method: string; path: string; headers: Record<string, string>; body: string; what: string } {
  headers["content-type"] = "application/json";
  if (r.chance(0.3)) {
    return {
      method: "POST",
      path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
      headers,
      body: largeEnumCRD(group),
      what: "POST a CRD with a 100 000-value enum",
    };
  }
  const pick = r.pick([`value-${r.int(VALUES)}`, "value-x", 5, ""]);
  return {
    method: r.pick(["POST", "PUT"]),
    path: `/apis/${group}/v1/namespaces/fuzz/${PLURAL}${r.chance(0.5) ? "" : "/e"}`,
    headers,
    body: JSON.stringify({
      apiVersion: `${group}/v1`,
      kind: "Enum",
      metadata: { name: "e" },
      spec: { pick },
    }),
    what: "write an object of the 100 000-value enum's kind",
  };
}
