// cel-go's optional values (kube 1.29+) on @bufbuild/cel, which has no optional type: an optional
// travels as a tagged map (tagged.ts's way) holding a list of none or one value, so `==` compares
// two optionals by what they hold and an optional never equals anything else (`null` included).
// Here: optional.of, optional.ofNonZeroValue, optional.none, hasValue, value, orValue, or, and
// (version 2) first, last, optional.unwrap and unwrapOpt.
// The `.?field`, `[?key]`, `[?x]` and `{?k: v}` syntax, which this CEL parser does not read, is
// rewritten by optional-syntax.ts into calls of the four functions at the end.
import {
  type CelFunc,
  type CelList,
  type CelMap,
  CelScalar,
  type CelValue,
  celError,
  celFunc,
  celList,
  celMap,
  celMethod,
  isCelList,
  isCelMap,
  isCelUint,
  listType,
  mapType,
} from "@bufbuild/cel";

const TAG = "\u0000optional";
const DYN = CelScalar.DYN;
const OPTIONAL = mapType(CelScalar.STRING, DYN);
const LIST = listType(DYN);

/** The functions the optional syntax is rewritten into (names no expression can spell). */
export const OPTIONAL_SELECT = "@optional.select";
export const OPTIONAL_INDEX = "@optional.index";
export const OPTIONAL_LIST = "@optional.list";
export const OPTIONAL_MAP = "@optional.map";

/** An optional holding `value`, or none. */
export function optionalOf(value?: CelValue): CelMap {
  return celMap(new Map([[TAG, celList(value === undefined ? [] : [value])]]));
}

function isOptional(v: CelValue): v is CelMap {
  return isCelMap(v) && isCelList(v.get(TAG));
}

/** What `v` holds when it is an optional: [] for none, [x] for some; CEL's "no such overload" otherwise. */
function held(v: CelMap): CelValue[] {
  const list = v.get(TAG) as CelList | undefined;
  if (list === undefined || !isCelList(list)) throw celError("no such overload");
  return [...list];
}

/** cel-go's zero values: what ofNonZeroValue turns into none. */
function isZero(v: CelValue): boolean {
  if (v === null || v === false || v === "" || v === 0 || v === 0n) return true;
  if (isCelUint(v)) return v.value === 0n;
  if (v instanceof Uint8Array) return v.length === 0;
  if (isCelList(v) || isCelMap(v)) return v.size === 0;
  return false;
}

export const optionalLibrary: CelFunc[] = [
  celFunc("optional.of", [DYN], OPTIONAL, (v: CelValue) => optionalOf(v)),
  celFunc("optional.ofNonZeroValue", [DYN], OPTIONAL, (v: CelValue) => optionalOf(isZero(v) ? undefined : v)),
  celFunc("optional.none", [], OPTIONAL, () => optionalOf()),
  celMethod("hasValue", OPTIONAL, [], CelScalar.BOOL, function (this: CelMap) {
    return held(this).length > 0;
  }),
  celMethod("value", OPTIONAL, [], DYN, function (this: CelMap) {
    const [v] = held(this);
    if (v === undefined) throw celError("optional.none() dereference");
    return v;
  }),
  celMethod("orValue", OPTIONAL, [DYN], DYN, function (this: CelMap, other: CelValue) {
    const [v] = held(this);
    return v === undefined ? other : v;
  }),
  celMethod("or", OPTIONAL, [OPTIONAL], OPTIONAL, function (this: CelMap, other: CelMap) {
    if (held(this).length > 0) return this;
    held(other); // an `or` of something that is not an optional is no such overload
    return other;
  }),
  // Version 2 of cel-go's optional library (kube 1.37's): a list's first and last element, and
  // the values a list of optionals holds.
  celMethod("first", LIST, [], OPTIONAL, function (this: CelList) {
    return optionalOf(this.size > 0 ? this.get(0) : undefined);
  }),
  celMethod("last", LIST, [], OPTIONAL, function (this: CelList) {
    return optionalOf(this.size > 0 ? this.get(this.size - 1) : undefined);
  }),
  celFunc("optional.unwrap", [LIST], LIST, (list: CelList) => unwrapped(list)),
  celMethod("unwrapOpt", LIST, [], LIST, function (this: CelList) {
    return unwrapped(this);
  }),
];

/** The values the optionals of `list` hold, in order; no such overload when one is no optional. */
function unwrapped(list: CelList): CelList {
  const out: CelValue[] = [];
  for (const v of list) {
    if (!isOptional(v)) throw celError("no such overload");
    out.push(...held(v));
  }
  return celList(out);
}

/**
 * `x.?field` and `x[?key]`: an optional of the entry (a list's element) when present, else none.
 * On an optional it reaches into the value held, so `a.?b.c` stays optional as in cel-go.
 */
function optionalEntry(x: CelValue, key: CelValue): CelMap {
  if (isOptional(x)) {
    const [v] = held(x);
    if (v === undefined) return x;
    x = v;
  }
  if (isCelMap(x)) {
    if (typeof key === "number" || typeof key === "object") throw celError("unsupported key type");
    return optionalOf(x.get(key as string | bigint | boolean));
  }
  if (isCelList(x)) {
    const i = typeof key === "bigint" ? Number(key) : isCelUint(key) ? Number(key.value) : key;
    if (typeof i !== "number" || !Number.isInteger(i)) throw celError("unsupported index type");
    return optionalOf(i >= 0 && i < x.size ? x.get(i) : undefined);
  }
  throw celError("no such overload");
}

/** The values of `values` whose flag is unset, and what the optionals flagged hold. */
function present(values: CelList, flags: CelList): (CelValue | undefined)[] {
  return [...values].map((v, i) => (flags.get(i) === true ? held(v as CelMap)[0] : v));
}

export const optionalSyntaxLibrary: CelFunc[] = [
  celFunc(OPTIONAL_SELECT, [DYN, CelScalar.STRING], OPTIONAL, optionalEntry),
  celFunc(OPTIONAL_INDEX, [DYN, DYN], OPTIONAL, optionalEntry),
  celFunc(OPTIONAL_LIST, [LIST, LIST], LIST, (values: CelList, flags: CelList) =>
    celList(present(values, flags).filter((v) => v !== undefined)),
  ),
  celFunc(
    OPTIONAL_MAP,
    [LIST, LIST, LIST],
    mapType(DYN, DYN),
    (keys: CelList, values: CelList, flags: CelList) => {
      const entries = new Map<CelValue, CelValue>();
      const kept = present(values, flags);
      for (const [i, k] of [...keys].entries()) {
        const v = kept[i];
        if (v === undefined) continue;
        if (entries.has(k)) throw celError(`Failed with repeated key`);
        entries.set(k, v);
      }
      return celMap(entries as Map<string, CelValue>);
    },
  ),
];
