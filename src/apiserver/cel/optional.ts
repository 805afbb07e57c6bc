// cel-go's optional values (kube 1.29+) on @bufbuild/cel, which has no optional type: an optional
// travels as a tagged map (tagged.ts's way) holding a list of none or one value, so `==` compares
// two optionals by what they hold and an optional never equals anything else (`null` included).
// Here: optional.of, optional.ofNonZeroValue, optional.none, hasValue, value, orValue, or.
// Not here: the `.?field` and `[?key]` syntax, which this CEL parser does not read.
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
  mapType,
} from "@bufbuild/cel";

const TAG = "\u0000optional";
const DYN = CelScalar.DYN;
const OPTIONAL = mapType(CelScalar.STRING, DYN);

/** An optional holding `value`, or none. */
export function optionalOf(value?: CelValue): CelMap {
  return celMap(new Map([[TAG, celList(value === undefined ? [] : [value])]]));
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
];
