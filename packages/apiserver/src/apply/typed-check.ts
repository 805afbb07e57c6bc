// SMD's validation of an apply configuration against its type, as kube runs it when it makes the
// typed patch object: a value of the wrong shape is refused (kube answers 500, "failed to create
// typed patch object"), in structured-merge-diff's words and with Go's print of its value:
// `.data: expected map, got &{5}`, `.metadata.annotations.a: expected string, got
// &value.valueUnstructured{Value:map[string]interface {}{"b":"c"}}`. Iterative: a configuration
// may nest as deep as bodies may.
import { goSharp, goV } from "../object/go-print.js";
import { listItemElement } from "./list-items.js";
import { type Json, type PathElement, pathText } from "./path-element.js";
import type { TypeNode } from "./type-model.js";

const isMap = (v: unknown): v is Record<string, Json> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Go's %T of such a value. */
function goT(v: unknown): string {
  if (Array.isArray(v)) return "[]interface {}";
  if (typeof v === "object") return "map[string]interface {}";
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64";
  return typeof v === "boolean" ? "bool" : "string";
}

/** The message SMD's validation gives `value` where `t` is declared, or undefined when it fits. */
function mismatch(value: Json, t: TypeNode): string | undefined {
  if (value === null) return undefined;
  // Printed only for a mismatch: the value may be a whole subtree.
  const boxed = () => `&{${goV(value)}}`;
  switch (t.kind) {
    case "map":
      return isMap(value) ? undefined : `expected map, got ${boxed()}`;
    case "list":
      return Array.isArray(value) ? undefined : `expected list, got ${boxed()}`;
    case "scalar":
      switch (t.scalar) {
        case "string":
          return typeof value === "string"
            ? undefined
            : `expected string, got &value.valueUnstructured{Value:${goSharp(value)}}`;
        case "numeric":
          return typeof value === "number" ? undefined : `expected numeric (int or float), got ${goT(value)}`;
        case "boolean":
          return typeof value === "boolean" ? undefined : `expected boolean, got ${boxed()}`;
        default:
          return typeof value === "object" ? `expected any scalar, got ${boxed()}` : undefined;
      }
    default:
      return undefined;
  }
}

/**
 * SMD's errors for `config` typed as `root`, as ValidationErrors prints them (one, or "errors:"
 * and each on its own line, sorted by path here where Go's map order would shuffle them).
 */
export function typedConfigurationErrors(config: Json, root: TypeNode): string | undefined {
  const errors: string[] = [];
  const path: PathElement[] = [];
  const stack: ({ value: Json; t: TypeNode; pe?: PathElement } | "pop")[] = [{ value: config, t: root }];
  while (stack.length > 0) {
    const top = stack.pop()!;
    if (top === "pop") {
      path.pop();
      continue;
    }
    if (top.pe) {
      path.push(top.pe);
      stack.push("pop");
    }
    const { value, t } = top;
    const problem = mismatch(value, t);
    if (problem) {
      errors.push(`${pathText(path)}: ${problem}`);
      continue;
    }
    if (t.kind === "map" && isMap(value) && !t.atomic) {
      for (const k of Object.keys(value).reverse()) {
        const ft = t.field(k);
        // Undeclared fields are the field-set walk's to refuse.
        if (ft === undefined && t.closed) continue;
        stack.push({ value: value[k], t: ft ?? t.element(), pe: { field: k } });
      }
    } else if (t.kind === "list" && Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) {
        let pe: PathElement;
        try {
          pe = listItemElement(t, value[i], i);
        } catch {
          // Items that cannot be keyed are the field-set walk's to refuse.
          continue;
        }
        stack.push({ value: value[i], t: t.element(), pe });
      }
    }
  }
  if (errors.length === 0) return undefined;
  if (errors.length === 1) return errors[0];
  return ["errors:", ...errors.sort().map((e) => `  ${e}`)].join("\n");
}
