// Kubernetes' CEL value types (Quantity, IP, CIDR) on @bufbuild/cel, which has no user-defined
// types: each travels as a one-entry map whose key no JSON object carries (the type's tag) and
// whose value is the value's canonical text, so `==` is the type's own equality.
import { type CelMap, celError, celMap, isCelMap } from "@bufbuild/cel";

/** A value of the type `tag`, as its canonical text. */
export function tagged(tag: string, text: string): CelMap {
  return celMap(new Map([[tag, text]]));
}

/** The text of `v` when it is of the type `tag`; CEL's "no such overload" otherwise. */
export function untag(v: unknown, tag: string): string {
  const text = isCelMap(v) ? v.get(tag) : undefined;
  if (typeof text !== "string") throw celError("no such overload");
  return text;
}

/** The text of `v` when it is of any of the types `tags`, else undefined. */
export function textOf(v: CelMap, tags: readonly string[]): string | undefined {
  for (const tag of tags) {
    const text = v.get(tag);
    if (typeof text === "string") return text;
  }
  return undefined;
}
