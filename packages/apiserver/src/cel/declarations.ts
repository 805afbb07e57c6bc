// The functions cel-go's checker knows in kube's CRD rule environment, by name, with every
// overload each name has there: cel-go's standard library (common/stdlib/standard.go of
// cel-go v0.29.2, with kube's CrossTypeNumericComparisons), its strings extension,
// Kubernetes' regex and list additions that share those names, its quantity library
// (library/quantity.go: sign is a global function there, not a method), its url and semver libraries, cel-go's optional values
// (version 2: first, last, unwrap) and Kubernetes' format library, whose functions are named in
// namespaces (`optional.of`, `format.named`). A function missing here
// is not checked at all (checker.ts gives its result an unknown type): a name listed must carry
// all of its overloads, or the checker would refuse calls cel-go accepts.
//
// One line an overload: `name (args) result` for a global function, `name .(receiver, args)
// result` for a member; A and B are type parameters.
import {
  BOOL,
  BYTES,
  type CelType,
  DOUBLE,
  DURATION,
  DYN,
  INT,
  listOf,
  mapOf,
  NULL,
  STRING,
  TIMESTAMP,
  typeOf,
  UINT,
} from "./checker-types.js";

const TABLE = `
  _?_:_ (bool, A, A) A
  _&&_ (bool, bool) bool
  _||_ (bool, bool) bool
  !_ (bool) bool
  @not_strictly_false (bool) bool
  _==_ (A, A) bool
  _!=_ (A, A) bool
  _+_ (bytes, bytes) bytes
  _+_ (double, double) double
  _+_ (duration, duration) duration
  _+_ (duration, timestamp) timestamp
  _+_ (timestamp, duration) timestamp
  _+_ (int, int) int
  _+_ (list(A), list(A)) list(A)
  _+_ (string, string) string
  _+_ (uint, uint) uint
  _/_ (double, double) double
  _/_ (int, int) int
  _/_ (uint, uint) uint
  _%_ (int, int) int
  _%_ (uint, uint) uint
  _*_ (double, double) double
  _*_ (int, int) int
  _*_ (uint, uint) uint
  -_ (double) double
  -_ (int) int
  _-_ (double, double) double
  _-_ (duration, duration) duration
  _-_ (int, int) int
  _-_ (timestamp, duration) timestamp
  _-_ (timestamp, timestamp) duration
  _-_ (uint, uint) uint
  _<_ (bool, bool) bool
  _<_ (int, int) bool
  _<_ (int, double) bool
  _<_ (int, uint) bool
  _<_ (uint, uint) bool
  _<_ (uint, double) bool
  _<_ (uint, int) bool
  _<_ (double, double) bool
  _<_ (double, int) bool
  _<_ (double, uint) bool
  _<_ (string, string) bool
  _<_ (bytes, bytes) bool
  _<_ (timestamp, timestamp) bool
  _<_ (duration, duration) bool
  _<=_ (bool, bool) bool
  _<=_ (int, int) bool
  _<=_ (int, double) bool
  _<=_ (int, uint) bool
  _<=_ (uint, uint) bool
  _<=_ (uint, double) bool
  _<=_ (uint, int) bool
  _<=_ (double, double) bool
  _<=_ (double, int) bool
  _<=_ (double, uint) bool
  _<=_ (string, string) bool
  _<=_ (bytes, bytes) bool
  _<=_ (timestamp, timestamp) bool
  _<=_ (duration, duration) bool
  _>_ (bool, bool) bool
  _>_ (int, int) bool
  _>_ (int, double) bool
  _>_ (int, uint) bool
  _>_ (uint, uint) bool
  _>_ (uint, double) bool
  _>_ (uint, int) bool
  _>_ (double, double) bool
  _>_ (double, int) bool
  _>_ (double, uint) bool
  _>_ (string, string) bool
  _>_ (bytes, bytes) bool
  _>_ (timestamp, timestamp) bool
  _>_ (duration, duration) bool
  _>=_ (bool, bool) bool
  _>=_ (int, int) bool
  _>=_ (int, double) bool
  _>=_ (int, uint) bool
  _>=_ (uint, uint) bool
  _>=_ (uint, double) bool
  _>=_ (uint, int) bool
  _>=_ (double, double) bool
  _>=_ (double, int) bool
  _>=_ (double, uint) bool
  _>=_ (string, string) bool
  _>=_ (bytes, bytes) bool
  _>=_ (timestamp, timestamp) bool
  _>=_ (duration, duration) bool
  _[_] (list(A), int) A
  _[_] (map(A, B), A) B
  @in (A, list(A)) bool
  @in (A, map(A, B)) bool
  size (bytes) int
  size .(bytes) int
  size (list(A)) int
  size .(list(A)) int
  size (map(A, B)) int
  size .(map(A, B)) int
  size (string) int
  size .(string) int
  type (A) type(A)
  bool (bool) bool
  bool (string) bool
  bytes (bytes) bytes
  bytes (string) bytes
  double (double) double
  double (int) double
  double (string) double
  double (uint) double
  duration (duration) duration
  duration (string) duration
  dyn (A) dyn
  int (int) int
  int (double) int
  int (duration) int
  int (string) int
  int (timestamp) int
  int (uint) int
  string (string) string
  string (bool) string
  string (bytes) string
  string (double) string
  string (duration) string
  string (int) string
  string (timestamp) string
  string (uint) string
  timestamp (timestamp) timestamp
  timestamp (int) timestamp
  timestamp (string) timestamp
  uint (uint) uint
  uint (double) uint
  uint (int) uint
  uint (string) uint
  contains .(string, string) bool
  endsWith .(string, string) bool
  startsWith .(string, string) bool
  matches (string, string) bool
  matches .(string, string) bool
  getFullYear .(timestamp) int
  getFullYear .(timestamp, string) int
  getMonth .(timestamp) int
  getMonth .(timestamp, string) int
  getDayOfYear .(timestamp) int
  getDayOfYear .(timestamp, string) int
  getDayOfMonth .(timestamp) int
  getDayOfMonth .(timestamp, string) int
  getDate .(timestamp) int
  getDate .(timestamp, string) int
  getDayOfWeek .(timestamp) int
  getDayOfWeek .(timestamp, string) int
  getHours .(timestamp) int
  getHours .(timestamp, string) int
  getHours .(duration) int
  getMinutes .(timestamp) int
  getMinutes .(timestamp, string) int
  getMinutes .(duration) int
  getSeconds .(timestamp) int
  getSeconds .(timestamp, string) int
  getSeconds .(duration) int
  getMilliseconds .(timestamp) int
  getMilliseconds .(timestamp, string) int
  getMilliseconds .(duration) int
  charAt .(string, int) string
  indexOf .(string, string) int
  indexOf .(string, string, int) int
  indexOf .(list(A), A) int
  lastIndexOf .(string, string) int
  lastIndexOf .(string, string, int) int
  lastIndexOf .(list(A), A) int
  lowerAscii .(string) string
  upperAscii .(string) string
  replace .(string, string, string) string
  replace .(string, string, string, int) string
  split .(string, string) list(string)
  split .(string, string, int) list(string)
  substring .(string, int) string
  substring .(string, int, int) string
  trim .(string) string
  join .(list(string)) string
  join .(list(string), string) string
  find .(string, string) string
  findAll .(string, string) list(string)
  findAll .(string, string, int) list(string)
  isSorted .(list(int)) bool
  isSorted .(list(uint)) bool
  isSorted .(list(double)) bool
  isSorted .(list(bool)) bool
  isSorted .(list(duration)) bool
  isSorted .(list(timestamp)) bool
  isSorted .(list(string)) bool
  isSorted .(list(bytes)) bool
  sum .(list(int)) int
  sum .(list(uint)) uint
  sum .(list(double)) double
  sum .(list(duration)) duration
  max .(list(int)) int
  min .(list(int)) int
  max .(list(uint)) uint
  min .(list(uint)) uint
  max .(list(double)) double
  min .(list(double)) double
  max .(list(bool)) bool
  min .(list(bool)) bool
  max .(list(duration)) duration
  min .(list(duration)) duration
  max .(list(timestamp)) timestamp
  min .(list(timestamp)) timestamp
  max .(list(string)) string
  min .(list(string)) string
  max .(list(bytes)) bytes
  min .(list(bytes)) bytes
  quantity (string) kubernetes.Quantity
  isQuantity (string) bool
  sign (kubernetes.Quantity) int
  isGreaterThan .(kubernetes.Quantity, kubernetes.Quantity) bool
  isLessThan .(kubernetes.Quantity, kubernetes.Quantity) bool
  compareTo .(kubernetes.Quantity, kubernetes.Quantity) int
  asApproximateFloat .(kubernetes.Quantity) double
  asInteger .(kubernetes.Quantity) int
  isInteger .(kubernetes.Quantity) bool
  add .(kubernetes.Quantity, kubernetes.Quantity) kubernetes.Quantity
  add .(kubernetes.Quantity, int) kubernetes.Quantity
  sub .(kubernetes.Quantity, kubernetes.Quantity) kubernetes.Quantity
  sub .(kubernetes.Quantity, int) kubernetes.Quantity
  url (string) kubernetes.URL
  isURL (string) bool
  getScheme .(kubernetes.URL) string
  getHost .(kubernetes.URL) string
  getHostname .(kubernetes.URL) string
  getPort .(kubernetes.URL) string
  getEscapedPath .(kubernetes.URL) string
  getQuery .(kubernetes.URL) map(string,list(string))
  semver (string) kubernetes.Semver
  semver (string, bool) kubernetes.Semver
  isSemver (string) bool
  isSemver (string, bool) bool
  isGreaterThan .(kubernetes.Semver, kubernetes.Semver) bool
  isLessThan .(kubernetes.Semver, kubernetes.Semver) bool
  compareTo .(kubernetes.Semver, kubernetes.Semver) int
  major .(kubernetes.Semver) int
  minor .(kubernetes.Semver) int
  patch .(kubernetes.Semver) int
  cel.@mapInsert (map(A, B), A, B) map(A,B)
  cel.@mapInsert (map(A, B), map(A, B)) map(A,B)
  string (net.IP) string
  string (net.CIDR) string
  _[_] (optional_type(list(A)), int) optional_type(A)
  _[_] (optional_type(map(A, B)), A) optional_type(B)
  value .(optional_type(A)) A
  hasValue .(optional_type(A)) bool
  or .(optional_type(A), optional_type(A)) optional_type(A)
  orValue .(optional_type(A), A) A
  first .(list(A)) optional_type(A)
  last .(list(A)) optional_type(A)
  unwrapOpt .(list(optional_type(A))) list(A)
  optional.of (A) optional_type(A)
  optional.ofNonZeroValue (A) optional_type(A)
  optional.none () optional_type(A)
  optional.unwrap (list(optional_type(A))) list(A)
  validate .(kubernetes.NamedFormat, string) optional_type(list(string))
  format.named (string) optional_type(kubernetes.NamedFormat)
  format.dns1123Label () kubernetes.NamedFormat
  format.dns1123Subdomain () kubernetes.NamedFormat
  format.dns1035Label () kubernetes.NamedFormat
  format.qualifiedName () kubernetes.NamedFormat
  format.dns1123LabelPrefix () kubernetes.NamedFormat
  format.dns1123SubdomainPrefix () kubernetes.NamedFormat
  format.dns1035LabelPrefix () kubernetes.NamedFormat
  format.labelValue () kubernetes.NamedFormat
  format.uri () kubernetes.NamedFormat
  format.uuid () kubernetes.NamedFormat
  format.byte () kubernetes.NamedFormat
  format.date () kubernetes.NamedFormat
  format.datetime () kubernetes.NamedFormat
`;

export interface Overload {
  member: boolean;
  /** The receiver first, for a member. */
  args: CelType[];
  result: CelType;
}

const NAMED: Record<string, CelType> = {
  bool: BOOL,
  bytes: BYTES,
  double: DOUBLE,
  duration: DURATION,
  dyn: DYN,
  int: INT,
  null_type: NULL,
  string: STRING,
  timestamp: TIMESTAMP,
  uint: UINT,
};

/** Reads a type of the table: a name, or `list(T)`, `map(K, V)`, `type(T)`. */
function parseType(text: string): CelType {
  const open = text.indexOf("(");
  if (open < 0) {
    if (text === "A" || text === "B") return { kind: "param", name: text };
    return NAMED[text] ?? { kind: "opaque", name: text, params: [] };
  }
  const params = splitTop(text.slice(open + 1, -1)).map(parseType);
  const name = text.slice(0, open);
  if (name === "list") return listOf(params[0]!);
  if (name === "map") return mapOf(params[0]!, params[1]!);
  if (name === "type") return typeOf(params[0]!);
  return { kind: "opaque", name, params };
}

/** `a, list(b), map(c, d)` split at its top-level commas. */
function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")") depth--;
    else if (text[i] === "," && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  const last = text.slice(start).trim();
  if (last !== "") out.push(last);
  return out;
}

let declarations: Map<string, Overload[]> | undefined;

/** Every overload of `name`, or undefined when the checker does not know the function. */
export function overloadsOf(name: string): readonly Overload[] | undefined {
  if (!declarations) {
    // Built whole, then kept: a table read half would check calls against too few overloads.
    const table = new Map<string, Overload[]>();
    for (const line of TABLE.trim().split("\n")) {
      const m = /^(\S+) (\.?)\((.*)\) (\S+)$/.exec(line.trim());
      if (!m) throw new Error(`bad declaration (a result type is written without spaces): ${line}`);
      const overloads = table.get(m[1]!) ?? [];
      overloads.push({
        member: m[2] === ".",
        args: splitTop(m[3]!).map(parseType),
        result: parseType(m[4]!),
      });
      table.set(m[1]!, overloads);
    }
    declarations = table;
  }
  return declarations.get(name);
}
