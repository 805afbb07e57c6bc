// metav1.Time and metav1.MicroTime as their UnmarshalJSON reads them: Go's time.Parse with the
// RFC 3339 layout ("2006-01-02T15:04:05Z07:00") or the micro one (six fraction digits, exactly),
// and its error words (`parsing time "bad" as "2006-01-02T15:04:05Z07:00": cannot parse "bad" as
// "2006"`). kube-apiserver answers 400 with them; a stored "bad" would fail every Go reader later.

export const RFC3339 = "2006-01-02T15:04:05Z07:00";
export const RFC3339_MICRO = "2006-01-02T15:04:05.000000Z07:00";

/** The layout's elements in order: fixed text, or a value element Go parses. */
const ELEMENTS: Record<string, string[]> = {
  [RFC3339]: ["2006", "-", "01", "-", "02", "T", "15", ":", "04", ":", "05", "Z07:00"],
  [RFC3339_MICRO]: ["2006", "-", "01", "-", "02", "T", "15", ":", "04", ":", "05", ".000000", "Z07:00"],
};

const isDigit = (s: string, i: number) => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57;

/** Go's getnum: one or two digits (two when `fixed`). */
function getnum(s: string, fixed: boolean): [number, string] | undefined {
  if (!isDigit(s, 0)) return undefined;
  if (!isDigit(s, 1)) return fixed ? undefined : [s.charCodeAt(0) - 48, s.slice(1)];
  return [(s.charCodeAt(0) - 48) * 10 + (s.charCodeAt(1) - 48), s.slice(2)];
}

function daysIn(month: number, year: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Go's quote: the text in double quotes, `"` and `\` escaped. */
const quote = (s: string) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

/** What time.Parse(layout, value) refuses, in its words; undefined when it parses. */
export function goTimeError(value: string, layout: string): string | undefined {
  const cannot = (valueElem: string, layoutElem: string) =>
    `parsing time ${quote(value)} as ${quote(layout)}: cannot parse ${quote(valueElem)} as ${quote(layoutElem)}`;
  const outOfRange = (what: string) => `parsing time ${quote(value)}: ${what} out of range`;
  let rest = value;
  let year = 0;
  let month = 0;
  let day = 0;
  for (const element of ELEMENTS[layout]!) {
    const hold = rest;
    switch (element) {
      case "2006": {
        if (rest.length < 4 || !/^[0-9]{4}/.test(rest)) return cannot(hold, element);
        year = Number(rest.slice(0, 4));
        rest = rest.slice(4);
        break;
      }
      case "01":
      case "02":
      case "15":
      case "04":
      case "05": {
        const got = getnum(rest, element !== "15");
        if (got === undefined) return cannot(hold, element);
        const [n, after] = got;
        rest = after;
        if (element === "01") {
          if (n <= 0 || n > 12) return outOfRange("month");
          month = n;
        } else if (element === "02") day = n;
        else if (element === "15" && n >= 24) return outOfRange("hour");
        else if (element === "04" && n >= 60) return outOfRange("minute");
        else if (element === "05") {
          if (n >= 60) return outOfRange("second");
          // A fraction the layout does not name is read all the same (RFC 3339's layout).
          if (
            layout === RFC3339 &&
            rest.length >= 2 &&
            (rest[0] === "." || rest[0] === ",") &&
            isDigit(rest, 1)
          ) {
            let end = 2;
            while (isDigit(rest, end)) end++;
            rest = rest.slice(end);
          }
        }
        break;
      }
      case ".000000": {
        if (rest.length < 7 || (rest[0] !== "." && rest[0] !== ",") || !/^[0-9]{6}/.test(rest.slice(1)))
          return cannot(hold, element);
        rest = rest.slice(7);
        break;
      }
      case "Z07:00": {
        if (rest.startsWith("Z")) {
          rest = rest.slice(1);
          break;
        }
        if (rest.length < 6 || rest[3] !== ":" || (rest[0] !== "+" && rest[0] !== "-"))
          return cannot(hold, element);
        const hh = getnum(rest.slice(1, 3), true);
        const mm = getnum(rest.slice(4, 6), true);
        if (hh === undefined || mm === undefined) return cannot(hold, element);
        if (hh[0] > 24) return outOfRange("time zone offset hour");
        if (mm[0] > 60) return outOfRange("time zone offset minute");
        rest = rest.slice(6);
        break;
      }
      default:
        // Fixed text: each character must be there.
        if (!rest.startsWith(element)) return cannot(rest, element);
        rest = rest.slice(element.length);
    }
  }
  if (rest !== "") return `parsing time ${quote(value)}: extra text: ${quote(rest)}`;
  if (day < 1 || day > daysIn(month, year)) return outOfRange("day");
  return undefined;
}

const CANONICAL = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const CANONICAL_MICRO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;
const ZERO = "0001-01-01T00:00:00Z";

/**
 * A Time or MicroTime (already parsed by goTimeError) as Go writes it back: in UTC, to the second
 * (Time) or the microsecond (MicroTime); Go's zero time as null (IsZero). `value` itself when it
 * is already so, or when JavaScript cannot read it (a one-digit hour Go takes).
 */
export function canonicalGoTime(value: string, micro: boolean): string | null {
  if (micro ? CANONICAL_MICRO.test(value) : CANONICAL.test(value))
    return micro || value !== ZERO ? value : null;
  const m = /^(.{19})(?:[.,](\d+))?(Z|[+-]\d\d:\d\d)$/.exec(value);
  if (m === null) return value;
  const ms = Date.parse(`${m[1]}${m[3]}`);
  if (Number.isNaN(ms)) return value;
  const seconds = new Date(ms).toISOString().slice(0, 19);
  if (!micro) return `${seconds}Z` === ZERO ? null : `${seconds}Z`;
  return `${seconds}.${(m[2] ?? "").padEnd(6, "0").slice(0, 6)}Z`;
}
