// The types a MutatingAdmissionPolicy's mutations build (kube's cel/mutation): `Object` and
// `Object.<field path>` (an apply configuration, any fields allowed) and `JSONPatch` (op, path,
// from, value), plus `jsonpatch.escapeKey`. @bufbuild/cel parses `Name{field: value}` but knows
// only protobuf messages, so such an initialiser is rewritten into a call of OBJECT with the type
// name and a map of its fields; the value it gives is a map, remembered as being of that type.
import {
  type CelFunc,
  type CelMap,
  CelScalar,
  type CelValue,
  celError,
  celFunc,
  celMap,
  isCelList,
  isCelMap,
  isCelUint,
  mapType,
} from "@bufbuild/cel";
import { childrenOf, type Expr, type Parsed } from "./ast.js";
import { OPTIONAL_MAP } from "./optional.js";
import { located } from "./references.js";

/** The function initialisers are rewritten into (a name no expression can spell). */
export const OBJECT = "@mutation.object";
export const OBJECT_TYPE = "Object";
export const JSON_PATCH_TYPE = "JSONPatch";
const JSON_PATCH_FIELDS = new Set(["op", "path", "from", "value"]);

/** The type of each value an initialiser made. */
const typeNames = new WeakMap<object, string>();

/** The type name of `v` when an initialiser made it. */
export function typeNameOf(v: unknown): string | undefined {
  return v !== null && typeof v === "object" ? typeNames.get(v) : undefined;
}

function isKnownType(name: string): boolean {
  return name === JSON_PATCH_TYPE || name === OBJECT_TYPE || name.startsWith(`${OBJECT_TYPE}.`);
}

/**
 * Rewrites the initialisers of `parsed` in place; an initialiser of another type is refused as
 * cel-go refuses it ("undeclared reference"), as is a `?field` entry, which is not supported here.
 */
export function rewriteInitialisers(parsed: Parsed, source: string): Parsed {
  const positions = parsed.sourceInfo?.positions ?? {};
  let next = 0n;
  for (const id of Object.keys(positions)) if (BigInt(id) >= next) next = BigInt(id) + 1n;
  const node = (exprKind: unknown, at: number): Expr => {
    const id = next++;
    positions[String(id)] = at;
    return { $typeName: "cel.expr.Expr", id, exprKind } as Expr;
  };
  const visit = (e: Expr | undefined): void => {
    if (!e) return;
    for (const c of childrenOf(e)) visit(c);
    const k = e.exprKind;
    if (k.case !== "structExpr" || k.value.messageName === "") return;
    const name = k.value.messageName;
    const at = positions[String(e.id)] ?? 0;
    if (!isKnownType(name)) {
      // cel-go reports an initialiser at its brace.
      const brace = source.indexOf("{", at);
      throw new Error(
        located(source, brace < 0 ? at : brace, `undeclared reference to '${name}' (in container '')`),
      );
    }
    for (const entry of k.value.entries) {
      if (entry.keyKind.case !== "fieldKey") continue;
      const field = entry.keyKind.value;
      entry.keyKind = {
        case: "mapKey",
        value: node(
          {
            case: "constExpr",
            value: { $typeName: "cel.expr.Constant", constantKind: { case: "stringValue", value: field } },
          },
          at,
        ),
      } as unknown as typeof entry.keyKind;
    }
    // `?field: optional` entries are kept only when the optional holds a value (optional.ts).
    const optional = k.value.entries.some((en) => en.optionalEntry);
    const list = (elements: Expr[]) =>
      node(
        { case: "listExpr", value: { $typeName: "cel.expr.Expr.CreateList", elements, optionalIndices: [] } },
        at,
      );
    const fields = optional
      ? node(
          {
            case: "callExpr",
            value: {
              $typeName: "cel.expr.Expr.Call",
              function: OPTIONAL_MAP,
              args: [
                list(k.value.entries.map((en) => en.keyKind.value as Expr)),
                list(k.value.entries.map((en) => en.value as Expr)),
                list(
                  k.value.entries.map((en) =>
                    node(
                      {
                        case: "constExpr",
                        value: {
                          $typeName: "cel.expr.Constant",
                          constantKind: { case: "boolValue", value: en.optionalEntry },
                        },
                      },
                      at,
                    ),
                  ),
                ),
              ],
            },
          },
          at,
        )
      : node({ case: "structExpr", value: { ...k.value, messageName: "" } }, at);
    const typeName = node(
      {
        case: "constExpr",
        value: { $typeName: "cel.expr.Constant", constantKind: { case: "stringValue", value: name } },
      },
      at,
    );
    e.exprKind = {
      case: "callExpr",
      value: { $typeName: "cel.expr.Expr.Call", function: OBJECT, args: [typeName, fields] },
    } as Expr["exprKind"];
  };
  visit(parsed.expr);
  return parsed;
}

/** kube's JSONPatchType.Val: its four fields only, op, path and from strings. */
function checkJsonPatch(fields: CelMap): void {
  for (const k of fields.keys()) {
    if (!JSON_PATCH_FIELDS.has(String(k))) throw celError(`unexpected JSONPatchType field: ${String(k)}`);
  }
  for (const f of ["op", "path", "from"]) {
    const v = fields.get(f);
    if (v !== undefined && typeof v !== "string") {
      throw celError(`unexpected type ${goTypeName(v)} for JSONPatchType '${f}' field`);
    }
  }
}

function goTypeName(v: CelValue): string {
  if (typeof v === "bigint") return "int64";
  if (typeof v === "number") return "float64";
  if (typeof v === "boolean") return "bool";
  if (isCelUint(v)) return "uint64";
  if (isCelList(v)) return "[]ref.Val";
  if (isCelMap(v)) return "map[ref.Val]ref.Val";
  return "string";
}

const jsonPatchEscape = (k: string) => k.replaceAll("~", "~0").replaceAll("/", "~1");

export const typedObjectLibrary: CelFunc[] = [
  celFunc(
    OBJECT,
    [CelScalar.STRING, mapType(CelScalar.DYN, CelScalar.DYN)],
    mapType(CelScalar.STRING, CelScalar.DYN),
    (name: string, fields: CelMap) => {
      if (name === JSON_PATCH_TYPE) checkJsonPatch(fields);
      const out = celMap(new Map([...fields.entries()].map(([k, v]) => [k as string, v])));
      typeNames.set(out, name);
      return out;
    },
  ),
  celFunc("jsonpatch.escapeKey", [CelScalar.STRING], CelScalar.STRING, jsonPatchEscape),
];

/**
 * kube's CheckTypeNamesMatchFieldPathNames: every initialiser inside an `Object` must be named by
 * its field path from the root (`Object.spec.template`); lists and maps pass the path on unchanged.
 */
export function typeNameMismatches(v: CelValue, path: string[] = [OBJECT_TYPE]): string[] {
  const out: string[] = [];
  const name = typeNameOf(v);
  const expected = path.join(".");
  if (name !== undefined && isCelMap(v)) {
    if (name !== expected) {
      out.push(
        `unexpected type name "${name}", expected "${expected}", which matches field name path from root Object type`,
      );
    }
    for (const [k, x] of v.entries()) out.push(...typeNameMismatches(x, [...path, String(k)]));
    return out;
  }
  if (isCelList(v)) for (const x of v) out.push(...typeNameMismatches(x, path));
  else if (isCelMap(v)) for (const [, x] of v.entries()) out.push(...typeNameMismatches(x, path));
  return out;
}

/** A CEL value as JSON: ints and uints as numbers, lists, maps with string keys, the rest as is. */
export function celToJson(v: CelValue): unknown {
  if (v === null || typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "bigint") return Number(v);
  if (typeof v === "number") return v;
  if (isCelUint(v)) return Number(v.value);
  if (v instanceof Uint8Array) return Buffer.from(v).toString("base64");
  if (isCelList(v)) return [...v].map(celToJson);
  if (isCelMap(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of v.entries()) {
      if (typeof k !== "string")
        throw new Error(`map key ${String(k)} is of type ${goTypeName(k)}, not string`);
      Object.defineProperty(out, k, {
        value: celToJson(x),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  throw new Error(`unsupported value type ${typeof v}`);
}
