// A YAML request body as kube-apiserver 1.37 reads it: sigs.k8s.io/yaml v1.6.0's YAMLToJSON over
// go.yaml.in/yaml/v2 v2.4.4, a YAML 1.1 reader. The yaml package parses (nesting.ts composes the
// nodes); this module gives them go-yaml's meaning: resolve.go's table for plain scalars (`yes`,
// `on`, `~`, `0x1F`, `017`, `1_000`, ...), its tags, merge keys, aliases with their expansion
// budget, and YAMLToJSON's conversion of keys (ints, bools, float32-formatted floats) and of
// values JSON cannot hold (NaN, infinities), each refused in go-yaml's or Go's own words.
// No recursion: bodies may nest 10 000 levels.

/** A node of the first document, as go-yaml's parser makes them. `line` is 0-based. */
export type YamlNode = YamlScalar | YamlMapping | YamlSequence | YamlAlias;
export interface YamlScalar {
  kind: "scalar";
  value: string;
  /** Plain style: its value is resolved by content unless tagged. */
  plain: boolean;
  /** The full tag (`tag:yaml.org,2002:int`, `!foo`, `!`), when one is written. */
  tag?: string;
  line: number;
}
export interface YamlMapping {
  kind: "mapping";
  /** Keys and values in turn. */
  children: YamlNode[];
  line: number;
}
export interface YamlSequence {
  kind: "sequence";
  children: YamlNode[];
  line: number;
}
export interface YamlAlias {
  kind: "alias";
  name: string;
  /** The node of the anchor as defined last before the alias (go-yaml's parser resolves it so). */
  target: YamlNode;
  line: number;
}

/** What go-yaml or sigs.k8s.io/yaml refuse, in their words (`yaml: ...`, `json: ...`). */
export class YamlBodyError extends Error {}

const TAG = "tag:yaml.org,2002:";
const STR = `${TAG}str`;
const BOOL = `${TAG}bool`;
const INT = `${TAG}int`;
const FLOAT = `${TAG}float`;
const NULL = `${TAG}null`;
const TIMESTAMP = `${TAG}timestamp`;
const BINARY = `${TAG}binary`;
const MERGE = `${TAG}merge`;

/** A scalar as go-yaml resolves it for an interface{}: Go's type matters for keys. */
type Resolved =
  | { type: "str"; value: string }
  | { type: "bool"; value: boolean }
  | { type: "null"; value: null }
  | { type: "int" | "uint"; value: bigint }
  | { type: "float"; value: number };

const NULL_VALUE: Resolved = { type: "null", value: null };

/** resolve.go's resolveMap. */
const RESOLVE_MAP = new Map<string, { tag: string; resolved: Resolved }>();
for (const [tag, resolved, words] of [
  [BOOL, { type: "bool", value: true }, "y Y yes Yes YES true True TRUE on On ON"],
  [BOOL, { type: "bool", value: false }, "n N no No NO false False FALSE off Off OFF"],
  [NULL, NULL_VALUE, "~ null Null NULL"],
  [FLOAT, { type: "float", value: Number.NaN }, ".nan .NaN .NAN"],
  [FLOAT, { type: "float", value: Number.POSITIVE_INFINITY }, ".inf .Inf .INF +.inf +.Inf +.INF"],
  [FLOAT, { type: "float", value: Number.NEGATIVE_INFINITY }, "-.inf -.Inf -.INF"],
  [MERGE, { type: "str", value: "<<" }, "<<"],
] as const) {
  for (const w of words.split(" ")) RESOLVE_MAP.set(w, { tag, resolved: resolved as Resolved });
}
RESOLVE_MAP.set("", { tag: NULL, resolved: NULL_VALUE });

/** resolve.go's resolveTable: what the first byte hints. */
function hintOf(s: string): string {
  if (s === "") return "N";
  const c = s[0];
  if (c === "+" || c === "-") return "S";
  if (c >= "0" && c <= "9") return "D";
  if ("yYnNtTfFoO~".includes(c)) return "M";
  if (c === ".") return ".";
  return "";
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/** Go's strconv.ParseInt(s, base, 64) (ParseUint when `unsigned`), without its range check. */
function parseGoInteger(s: string, base: 0 | 2, unsigned: boolean): bigint | undefined {
  let sign = 1n;
  let rest = s;
  if (rest[0] === "+" || rest[0] === "-") {
    if (unsigned) return undefined;
    if (rest[0] === "-") sign = -1n;
    rest = rest.slice(1);
  }
  let digits = rest;
  let radix = base === 0 ? 10 : base;
  if (base === 0) {
    const prefix = rest.slice(0, 2).toLowerCase();
    if (prefix === "0x") [radix, digits] = [16, rest.slice(2)];
    else if (prefix === "0o") [radix, digits] = [8, rest.slice(2)];
    else if (prefix === "0b") [radix, digits] = [2, rest.slice(2)];
    else if (rest.length > 1 && rest[0] === "0") [radix, digits] = [8, rest.slice(1)];
  }
  const pattern = { 2: /^[01]+$/, 8: /^[0-7]+$/, 10: /^[0-9]+$/, 16: /^[0-9a-fA-F]+$/ }[radix];
  if (!pattern?.test(digits)) return undefined;
  const magnitude = BigInt(radix === 10 ? digits : `0${"xob"[[16, 8, 2].indexOf(radix)]}${digits}`);
  return sign * magnitude;
}

/** ParseInt then ParseUint, as resolve.go tries them: an int, a uint64, or nothing. */
function goInteger(s: string, base: 0 | 2): Resolved | undefined {
  const signed = parseGoInteger(s, base, false);
  if (signed !== undefined && signed >= INT64_MIN && signed <= INT64_MAX)
    return { type: "int", value: signed };
  const unsigned = parseGoInteger(s, base, true);
  if (unsigned !== undefined && unsigned <= UINT64_MAX) return { type: "uint", value: unsigned };
  return undefined;
}

const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

/** Go's ParseFloat for the decimal forms resolve.go hands it: out of range is an error. */
function goFloat(s: string): Resolved | undefined {
  const f = Number(s);
  return Number.isFinite(f) ? { type: "float", value: f } : undefined;
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** resolve.go's parseTimestamp: Go's time.Parse with its four layouts. */
function isTimestamp(s: string): boolean {
  const m =
    /^(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:[Tt](\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2}))|(?: (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?))?$/.exec(
      s,
    );
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (month < 1 || month > 12 || day < 1 || day > DAYS[month - 1] + (month === 2 && leap ? 1 : 0)) {
    return false;
  }
  const [h, min, sec] = [m[4] ?? m[7], m[5] ?? m[8], m[6] ?? m[9]].map((x) => Number(x ?? 0));
  return h < 24 && min < 60 && sec < 60;
}

const shortTag = (tag: string) => (tag.startsWith(TAG) ? `!!${tag.slice(TAG.length)}` : tag);
const RESOLVABLE = new Set(["", STR, BOOL, INT, FLOAT, NULL, TIMESTAMP]);

/** resolve.go's resolve(tag, in): the tag it settles on and the value. */
function resolve(tag: string, input: string): { tag: string; resolved: Resolved } {
  if (!RESOLVABLE.has(tag)) return { tag, resolved: { type: "str", value: input } };
  const found = resolveUntyped(tag, input);
  if (tag === "" || tag === found.tag || tag === STR) return found;
  if (tag === FLOAT && found.tag === INT && found.resolved.type === "int") {
    return { tag: FLOAT, resolved: { type: "float", value: Number(found.resolved.value) } };
  }
  throw new YamlBodyError(`yaml: cannot decode ${shortTag(found.tag)} \`${input}\` as a ${shortTag(tag)}`);
}

function resolveUntyped(tag: string, input: string): { tag: string; resolved: Resolved } {
  const hint = hintOf(input);
  const str = { tag: STR, resolved: { type: "str", value: input } as Resolved };
  if (hint === "" || tag === STR) return str;
  const item = RESOLVE_MAP.get(input);
  if (item) return item;
  if (hint === ".") {
    const f = /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(input) ? goFloat(input) : undefined;
    return f ? { tag: FLOAT, resolved: f } : str;
  }
  if (hint === "D" || hint === "S") {
    if ((tag === "" || tag === TIMESTAMP) && isTimestamp(input)) {
      // go-yaml gives an interface{} the text of a timestamp, not a time.
      return { tag: TIMESTAMP, resolved: { type: "str", value: input } };
    }
    const plain = input.replaceAll("_", "");
    const n = goInteger(plain, 0);
    if (n) return { tag: INT, resolved: n };
    if (YAML_STYLE_FLOAT.test(plain)) {
      const f = goFloat(plain);
      if (f) return { tag: FLOAT, resolved: f };
    }
    if (plain.startsWith("0b")) {
      const b = goInteger(plain.slice(2), 2);
      if (b) return { tag: INT, resolved: b };
    } else if (plain.startsWith("-0b")) {
      const b = parseGoInteger(`-${plain.slice(3)}`, 2, false);
      if (b !== undefined && b >= INT64_MIN) return { tag: INT, resolved: { type: "int", value: b } };
    }
  }
  return str;
}

/** Go's base64.StdEncoding.DecodeString (line breaks ignored), as UTF-8 text. */
function decodeBinary(text: string): string {
  const data = text.replace(/[\r\n]/g, "");
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(data)) {
    throw new YamlBodyError("yaml: !!binary value contains invalid base64 data");
  }
  return Buffer.from(data, "base64").toString("utf8");
}

/** decode.go's scalar() for an interface{}. */
function resolveScalar(n: YamlScalar): Resolved {
  if (n.tag === undefined && !n.plain) return { type: "str", value: n.value };
  const { tag, resolved } = resolve(n.tag ?? "", n.value);
  if (tag === BINARY) return { type: "str", value: decodeBinary(n.value) };
  return resolved;
}

/** A Go map[interface{}]interface{}: keys keep their Go type until YAMLToJSON makes them strings. */
class GoMap {
  readonly entries = new Map<unknown, { key: GoValue; value: GoValue }>();
}
type GoValue = Resolved | GoMap | GoValue[];

/** The identity of a key in a Go map: its type and value (NaN is never equal to itself). */
let nanKeys = 0;
function keyIdentity(key: Resolved): unknown {
  if (key.type === "float" && Number.isNaN(key.value)) return `nan:${nanKeys++}`;
  return `${key.type}:${String(key.value)}`;
}

/** fmt's %#v of a decoded value, as go-yaml and sigs.k8s.io/yaml print one in their errors. */
function goSyntax(v: GoValue, nested = false, depth = 0): string {
  if (depth > 50) return "...";
  if (v instanceof GoMap) {
    const items = [...v.entries.values()].map(
      (e) => `${goSyntax(e.key, true, depth + 1)}:${goSyntax(e.value, true, depth + 1)}`,
    );
    return `map[interface {}]interface {}{${items.sort().join(", ")}}`;
  }
  if (Array.isArray(v)) return `[]interface {}{${v.map((x) => goSyntax(x, true, depth + 1)).join(", ")}}`;
  switch (v.type) {
    case "str":
      return JSON.stringify(v.value);
    case "null":
      return nested ? "interface {}(nil)" : "<nil>";
    case "uint":
      return `0x${v.value.toString(16)}`;
    case "float":
      return goFloatText(v.value, 64);
    default:
      return String(v.value);
  }
}

/** strconv.FormatFloat(f, 'g', -1, bits): the shortest text that reads back as the same float. */
function goFloatText(f: number, bits: 32 | 64): string {
  if (Number.isNaN(f)) return "NaN";
  const v = bits === 32 ? Math.fround(f) : f;
  if (!Number.isFinite(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v === 0) return Object.is(v, -0) ? "-0" : "0";
  let text = "";
  for (let p = 1; p <= 17; p++) {
    text = v.toExponential(p - 1);
    const back = Number(text);
    if ((bits === 32 ? Math.fround(back) : back) === v) break;
  }
  const [mantissa, e] = text.split("e");
  const negative = mantissa.startsWith("-");
  const digits = mantissa.replace(/^-/, "").replace(".", "").replace(/0+$/, "") || "0";
  const exp = Number(e);
  const sign = negative ? "-" : "";
  // The shortest form: %e past an exponent of 6, as strconv decides for -1 precision.
  if (exp < -4 || exp >= 6) {
    const frac = digits.length > 1 ? `.${digits.slice(1)}` : "";
    const abs = Math.abs(exp);
    return `${sign}${digits[0]}${frac}e${exp < 0 ? "-" : "+"}${abs < 10 ? "0" : ""}${abs}`;
  }
  const dp = exp + 1;
  if (dp <= 0) return `${sign}0.${"0".repeat(-dp)}${digits}`;
  if (dp >= digits.length) return `${sign}${digits}${"0".repeat(dp - digits.length)}`;
  return `${sign}${digits.slice(0, dp)}.${digits.slice(dp)}`;
}

/** sigs.k8s.io/yaml's conversion of a key to a JSON name, or its error. */
function jsonKey(key: GoValue, value: GoValue): string {
  if (!(key instanceof GoMap) && !Array.isArray(key)) {
    switch (key.type) {
      case "str":
        return key.value;
      case "int":
        return key.value.toString();
      case "bool":
        return String(key.value);
      case "float": {
        const s = goFloatText(key.value, 32);
        return s === "+Inf" ? ".inf" : s === "-Inf" ? "-.inf" : s === "NaN" ? ".nan" : s;
      }
    }
  }
  const type =
    !(key instanceof GoMap) && !Array.isArray(key) && key.type === "uint" ? "uint64" : "%!s(<nil>)";
  throw new YamlBodyError(
    `unsupported map key of type: ${type}, key: ${goSyntax(key)}, value: ${goSyntax(value)}`,
  );
}

// decode.go's budget against alias expansion ("billion laughs").
const ALIAS_RATIO_RANGE_LOW = 400_000;
const ALIAS_RATIO_RANGE_HIGH = 4_000_000;
function allowedAliasRatio(decodeCount: number): number {
  if (decodeCount <= ALIAS_RATIO_RANGE_LOW) return 0.99;
  if (decodeCount >= ALIAS_RATIO_RANGE_HIGH) return 0.1;
  return (
    0.99 - (0.89 * (decodeCount - ALIAS_RATIO_RANGE_LOW)) / (ALIAS_RATIO_RANGE_HIGH - ALIAS_RATIO_RANGE_LOW)
  );
}

const isMerge = (n: YamlNode) =>
  n.kind === "scalar" && n.value === "<<" && ((n.plain && n.tag === undefined) || n.tag === MERGE);

type Task =
  | { t: "decode"; node: YamlNode; sink: (v: GoValue) => void }
  | { t: "into"; node: YamlNode; map: GoMap }
  | { t: "pairs"; node: YamlMapping; map: GoMap; i: number }
  | { t: "value"; node: YamlNode; map: GoMap; key: () => GoValue }
  | { t: "merge"; node: YamlNode; map: GoMap }
  | { t: "mergeSeq"; node: YamlSequence; map: GoMap; i: number }
  | { t: "items"; node: YamlSequence; out: GoValue[]; i: number }
  | { t: "unalias"; node: YamlAlias }
  | { t: "set"; run: () => void };

/** A body's value and go-yaml's strict complaints (repeated keys), as YAMLToJSON makes them. */
export interface YamlValue {
  value: unknown;
  duplicates: string[];
}

/**
 * decode.go's unmarshal of the document into an interface{} (counting as it counts, for the
 * alias budget), then YAMLToJSON's conversion to JSON's values.
 */
export function decodeYaml(root: YamlNode | undefined): YamlValue {
  const duplicates: string[] = [];
  if (!root) return { value: null, duplicates };
  let decodeCount = 1; // the document node
  let aliasCount = 0;
  let aliasDepth = 0;
  const expanding = new Set<YamlAlias>();
  const count = () => {
    decodeCount++;
    if (aliasDepth > 0) aliasCount++;
    if (aliasCount > 100 && decodeCount > 1000 && aliasCount / decodeCount > allowedAliasRatio(decodeCount)) {
      throw new YamlBodyError("yaml: document contains excessive aliasing");
    }
  };
  const enterAlias = (n: YamlAlias) => {
    if (expanding.has(n)) throw new YamlBodyError(`yaml: anchor '${n.name}' value contains itself`);
    expanding.add(n);
    aliasDepth++;
    tasks.push({ t: "unalias", node: n });
  };
  /** decode.go's setMapIndex: a repeated key is a strict error, at its value's line. */
  const setKey = (map: GoMap, key: GoValue, value: GoValue, line: number) => {
    const id = keyIdentity(key as Resolved);
    if (map.entries.has(id)) duplicates.push(`line ${line + 1}: key ${goSyntax(key)} already set in map`);
    map.entries.set(id, { key, value });
  };
  const wantMap = () => new YamlBodyError("yaml: map merge requires map or sequence of maps as the value");
  let result: GoValue = NULL_VALUE;
  const tasks: Task[] = [{ t: "decode", node: root, sink: (v) => (result = v) }];
  for (let task = tasks.pop(); task; task = tasks.pop()) {
    switch (task.t) {
      case "decode": {
        const n = task.node;
        count();
        if (n.kind === "alias") {
          enterAlias(n);
          tasks.push({ t: "decode", node: n.target, sink: task.sink });
        } else if (n.kind === "scalar") task.sink(resolveScalar(n));
        else if (n.kind === "mapping") {
          const map = new GoMap();
          task.sink(map);
          tasks.push({ t: "pairs", node: n, map, i: 0 });
        } else {
          const out: GoValue[] = [];
          task.sink(out);
          tasks.push({ t: "items", node: n, out, i: 0 });
        }
        break;
      }
      case "into": {
        // A merged mapping (or an alias of one) decoded into the map being built.
        count();
        const n = task.node;
        if (n.kind === "alias") {
          enterAlias(n);
          tasks.push({ t: "into", node: n.target, map: task.map });
        } else if (n.kind === "mapping") tasks.push({ t: "pairs", node: n, map: task.map, i: 0 });
        break;
      }
      case "pairs": {
        const { node, map } = task;
        let i = task.i;
        // Scalar keys with scalar values, decoded here: no task each (the common case).
        for (; i < node.children.length; i += 2) {
          const [k, v] = [node.children[i], node.children[i + 1]];
          if (k.kind !== "scalar" || v.kind !== "scalar" || isMerge(k)) break;
          count();
          const key = resolveScalar(k);
          count();
          setKey(map, key, resolveScalar(v), v.line);
        }
        if (i >= node.children.length) break;
        tasks.push({ ...task, i: i + 2 });
        const keyNode = node.children[i];
        if (isMerge(keyNode)) {
          tasks.push({ t: "merge", node: node.children[i + 1], map });
          break;
        }
        let key: GoValue = NULL_VALUE;
        tasks.push({ t: "value", node: node.children[i + 1], map, key: () => key });
        tasks.push({ t: "decode", node: keyNode, sink: (v) => (key = v) });
        break;
      }
      case "value": {
        const key = task.key();
        if (key instanceof GoMap || Array.isArray(key)) {
          throw new YamlBodyError(`yaml: invalid map key: ${goSyntax(key)}`);
        }
        const { map, node } = task;
        // go-yaml sets the key once its value is decoded: repeats inside the value come first.
        let value: GoValue = NULL_VALUE;
        tasks.push({ t: "set", run: () => setKey(map, key, value, node.line) });
        tasks.push({ t: "decode", node, sink: (v) => (value = v) });
        break;
      }
      case "set":
        task.run();
        break;
      case "merge": {
        const n = task.node;
        if (n.kind === "mapping") tasks.push({ t: "into", node: n, map: task.map });
        else if (n.kind === "alias") {
          if (n.target.kind !== "mapping") throw wantMap();
          tasks.push({ t: "into", node: n, map: task.map });
        } else if (n.kind === "sequence") {
          tasks.push({ t: "mergeSeq", node: n, map: task.map, i: n.children.length - 1 });
        } else throw wantMap();
        break;
      }
      case "mergeSeq": {
        // Backwards: the first maps listed win.
        const { node, map, i } = task;
        if (i < 0) break;
        const ni = node.children[i];
        const target = ni.kind === "alias" ? ni.target : ni;
        if (target.kind !== "mapping") throw wantMap();
        tasks.push({ ...task, i: i - 1 });
        tasks.push({ t: "into", node: ni, map });
        break;
      }
      case "items": {
        const { node, out } = task;
        let i = task.i;
        for (; i < node.children.length && node.children[i].kind === "scalar"; i++) {
          count();
          out.push(resolveScalar(node.children[i] as YamlScalar));
        }
        if (i >= node.children.length) break;
        tasks.push({ ...task, i: i + 1 });
        tasks.push({ t: "decode", node: node.children[i], sink: (v) => out.push(v) });
        break;
      }
      case "unalias":
        aliasDepth--;
        expanding.delete(task.node);
        break;
    }
  }
  return { value: toJson(result), duplicates };
}

/** YAMLToJSON's convertToJSONableObject and json.Marshal: string keys, finite numbers. */
function toJson(root: GoValue): unknown {
  let keyError: YamlBodyError | undefined;
  let unsupported: string | undefined;
  const scalar = (v: Resolved): unknown => {
    if (v.type === "int" || v.type === "uint") return Number(v.value);
    if (v.type === "float" && !Number.isFinite(v.value)) unsupported ??= goFloatText(v.value, 64);
    return v.value;
  };
  const convert = (v: GoValue, place: (x: unknown) => void) => {
    if (v instanceof GoMap) {
      const obj: Record<string, unknown> = {};
      place(obj);
      stack.push({ from: v, to: obj });
    } else if (Array.isArray(v)) {
      const arr: unknown[] = [];
      place(arr);
      stack.push({ from: v, to: arr });
    } else place(scalar(v));
  };
  const stack: { from: GoMap | GoValue[]; to: Record<string, unknown> | unknown[] }[] = [];
  let result: unknown;
  convert(root, (x) => (result = x));
  for (let top = stack.pop(); top; top = stack.pop()) {
    const { from, to } = top;
    if (from instanceof GoMap) {
      for (const { key, value } of from.entries.values()) {
        let name: string;
        try {
          name = jsonKey(key, value);
        } catch (e) {
          keyError ??= e as YamlBodyError;
          continue;
        }
        convert(value, (x) =>
          Object.defineProperty(to, name, { value: x, enumerable: true, writable: true, configurable: true }),
        );
      }
    } else for (const item of from) convert(item, (x) => (to as unknown[]).push(x));
  }
  if (keyError) throw keyError;
  if (unsupported !== undefined) throw new YamlBodyError(`json: unsupported value: ${unsupported}`);
  return result;
}
