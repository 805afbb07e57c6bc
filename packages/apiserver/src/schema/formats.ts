// The string formats kube-openapi checks in custom resources; unknown formats are ignored, as in
// kube. Each check answers whether a string is well formed.
import { isIP } from "node:net";
import { parseGoDuration } from "controller-runtime/api";

const DATE = /^\d{4}-\d{2}-\d{2}$/;
// RFC 3339 as strfmt accepts it: `T` or a space, optional fraction, `Z` or an offset.
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:?\d{2})$/;
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID_V = (v: number) =>
  new RegExp(`^[0-9a-f]{8}-?[0-9a-f]{4}-?${v}[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$`, "i");
const HOSTNAME =
  /^[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)*\.?$/;
const EMAIL = /^[^\s@<>]+@[^\s@<>]+$/;
const MAC =
  /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$|^([0-9a-f]{2}[:-]){7}[0-9a-f]{2}$|^([0-9a-f]{4}\.){2}[0-9a-f]{4}$/i;
// govalidator's IsBase64: one group at least, so "" is no byte string.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const HEX_COLOR = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i;
// govalidator's: each channel 0-255 without leading zeroes.
const CHANNEL = "(0|[1-9]\\d?|1\\d\\d?|2[0-4]\\d|25[0-5])";
const RGB_COLOR = new RegExp(`^rgb\\(\\s*${CHANNEL}\\s*,\\s*${CHANNEL}\\s*,\\s*${CHANNEL}\\s*\\)$`);
const CREDIT_CARD =
  /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const BSON_OBJECT_ID = /^[0-9a-f]{24}$/i;

function validDateParts(s: string): boolean {
  const [y, m, d] = s.slice(0, 10).split("-").map(Number);
  if (m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

function isCIDR(s: string): boolean {
  const slash = s.indexOf("/");
  if (slash < 0) return false;
  const ip = isIP(s.slice(0, slash));
  const bits = s.slice(slash + 1);
  if (ip === 0 || !/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (ip === 4 ? 32 : 128);
}

function isURI(s: string): boolean {
  try {
    new URL(s);
    return true;
  } catch {
    return s.startsWith("/");
  }
}

/** govalidator's IsISBN: spaces and dashes dropped, then the pattern and the checksum. */
function isISBN(s: string, version: 10 | 13): boolean {
  const d = s.replace(/[\s-]+/g, "");
  const digit = (i: number) => d.charCodeAt(i) - 48;
  if (version === 10) {
    if (!/^(?:[0-9]{9}X|[0-9]{10})$/.test(d)) return false;
    let sum = 0;
    for (let i = 0; i < 9; i++) sum += (i + 1) * digit(i);
    sum += 10 * (d[9] === "X" ? 10 : digit(9));
    return sum % 11 === 0;
  }
  if (!/^[0-9]{13}$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (i % 2 === 0 ? 1 : 3) * digit(i);
  return digit(12) === (10 - (sum % 10)) % 10;
}

/** govalidator's IsCreditCard: the digits, a known issuer's pattern, and Luhn's checksum. */
function isCreditCard(s: string): boolean {
  const d = s.replace(/[^0-9]+/g, "");
  if (!CREDIT_CARD.test(d)) return false;
  let sum = 0;
  for (let i = d.length - 1, double = false; i >= 0; i--, double = !double) {
    const n = (d.charCodeAt(i) - 48) * (double ? 2 : 1);
    sum += n >= 10 ? (n % 10) + 1 : n;
  }
  return sum % 10 === 0;
}

const CHECKS: Record<string, (s: string) => boolean> = {
  date: (s) => DATE.test(s) && validDateParts(s),
  "date-time": (s) => DATE_TIME.test(s) && validDateParts(s),
  datetime: (s) => DATE_TIME.test(s) && validDateParts(s),
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID_V(3).test(s),
  uuid4: (s) => UUID_V(4).test(s),
  uuid5: (s) => UUID_V(5).test(s),
  hostname: (s) => s.length <= 255 && HOSTNAME.test(s),
  email: (s) => EMAIL.test(s),
  ipv4: (s) => isIP(s) === 4,
  ipv6: (s) => isIP(s) === 6,
  cidr: isCIDR,
  mac: (s) => MAC.test(s),
  uri: isURI,
  byte: (s) => BASE64.test(s),
  duration: (s) => parseStrfmtDuration(s) !== undefined,
  isbn: (s) => isISBN(s, 10) || isISBN(s, 13),
  isbn10: (s) => isISBN(s, 10),
  isbn13: (s) => isISBN(s, 13),
  creditcard: isCreditCard,
  ssn: (s) => s.length === 11 && SSN.test(s),
  hexcolor: (s) => HEX_COLOR.test(s),
  rgbcolor: (s) => RGB_COLOR.test(s),
  bsonobjectid: (s) => BSON_OBJECT_ID.test(s),
};

/** Whether `value` is valid for `format`; true for formats kube does not check. */
export function checkFormat(format: string, value: string): boolean {
  const check = CHECKS[format];
  return check === undefined || check(value);
}

/** strfmt's units of the scala-style durations, each group's last name also a prefix (`mins`). */
const SCALA_UNITS: [ms: number, names: string[]][] = [
  [1e-6, ["ns", "nano"]],
  [1e-3, ["us", "µs", "micro"]],
  [1, ["ms", "milli"]],
  [1000, ["s", "sec"]],
  [60_000, ["m", "min"]],
  [3_600_000, ["h", "hr", "hour"]],
  [86_400_000, ["d", "day"]],
  [604_800_000, ["w", "wk", "week"]],
];
const MAX_INT64 = 2n ** 63n - 1n;

/**
 * kube-openapi's strfmt.ParseDuration, in milliseconds: Go's time.ParseDuration, else every
 * `<digits> <unit>` found anywhere in the text, scala-style (`5 minutes`, `1 hour 30 mins`);
 * undefined when neither reads a unit.
 */
export function parseStrfmtDuration(text: string): number | undefined {
  const go = parseGoDuration(text);
  if (go !== undefined) return go;
  let total = 0;
  let found = false;
  for (const [, digits, name] of text.matchAll(/(\d+)\s*([A-Za-zµ]+)/g)) {
    if (BigInt(digits!) > MAX_INT64) return undefined; // strconv.Atoi's range error ends the parse
    const unit = name!.trim().toLowerCase();
    for (const [ms, names] of SCALA_UNITS) {
      names.forEach((n, i) => {
        if ((i === names.length - 1 && unit.startsWith(n)) || unit === n) {
          found = true;
          total += Number(digits) * ms;
        }
      });
    }
  }
  return found ? total : undefined;
}
