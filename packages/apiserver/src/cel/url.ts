// The url library (urls.go): url(), isURL() and the getters, on Go's url.ParseRequestURI. A URL
// value is carried as its validated text, so the getters are string methods (a rule calling one
// on a plain string gets an answer where kube's type checker would refuse it).
import { type CelFunc, CelScalar, celError, celFunc, celMethod, listType, mapType } from "@bufbuild/cel";

interface GoURL {
  scheme: string;
  opaque: string;
  host: string;
  path: string;
  /** The path as written, when it is a valid encoding of `path`. */
  rawPath: string;
  rawQuery: string;
}

const ALPHA = /^[A-Za-z]$/;
const SCHEME_TAIL = /^[A-Za-z0-9+\-.]$/;

/** Go's url.PathUnescape-like decoding, with Go's error for a bad escape. */
function urlUnescape(s: string, plusIsSpace: boolean): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "%") {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) {
        const bad = s.slice(i, i + 3);
        throw new Error(`invalid URL escape ${JSON.stringify(bad)}`);
      }
      out += String.fromCharCode(Number.parseInt(hex, 16));
      i += 2;
    } else out += plusIsSpace && c === "+" ? " " : c;
  }
  return Buffer.from(out, "latin1").toString("utf8");
}

function validOptionalPort(port: string): boolean {
  return port === "" || (port[0] === ":" && /^[0-9]*$/.test(port.slice(1)));
}

function parseHost(host: string): string {
  if (host.startsWith("[")) {
    const i = host.lastIndexOf("]");
    if (i < 0) throw new Error("missing ']' in host");
    const colonPort = host.slice(i + 1);
    if (!validOptionalPort(colonPort))
      throw new Error(`invalid port ${JSON.stringify(colonPort)} after host`);
  } else {
    const i = host.lastIndexOf(":");
    if (i !== -1 && !validOptionalPort(host.slice(i))) {
      throw new Error(`invalid port ${JSON.stringify(host.slice(i))} after host`);
    }
  }
  return urlUnescape(host, false);
}

/** Go's url.ParseRequestURI (an absolute URI, or an absolute path), with its errors. */
export function parseRequestURI(raw: string): GoURL {
  const fail = (why: string) => new Error(`parse ${JSON.stringify(raw)}: ${why}`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Go refuses exactly these bytes
  if (/[\x00-\x1f\x7f]/.test(raw)) throw fail("net/url: invalid control character in URL");
  if (raw === "") throw fail("empty url");
  const u: GoURL = { scheme: "", opaque: "", host: "", path: "", rawPath: "", rawQuery: "" };
  if (raw === "*") return { ...u, path: "*" };
  let rest = raw;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (ALPHA.test(c)) continue;
    if (SCHEME_TAIL.test(c)) {
      if (i === 0) break;
      continue;
    }
    if (c === ":") {
      if (i === 0) throw fail("missing protocol scheme");
      u.scheme = raw.slice(0, i).toLowerCase();
      rest = raw.slice(i + 1);
    }
    break;
  }
  if (rest.endsWith("?") && rest.split("?").length === 2) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf("?");
    if (q >= 0) {
      u.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith("/")) {
    if (u.scheme !== "") return { ...u, opaque: rest };
    throw fail("invalid URI for request");
  }
  try {
    if (u.scheme !== "" && rest.startsWith("//")) {
      let authority = rest.slice(2);
      rest = "";
      const slash = authority.indexOf("/");
      if (slash >= 0) {
        rest = authority.slice(slash);
        authority = authority.slice(0, slash);
      }
      const at = authority.lastIndexOf("@");
      u.host = parseHost(at < 0 ? authority : authority.slice(at + 1));
    }
    u.path = urlUnescape(rest, false);
  } catch (e) {
    throw fail((e as Error).message);
  }
  u.rawPath = rest;
  return u;
}

/**
 * Go's URL.EscapedPath: the path as written when that is a valid encoding of it (validEncoded),
 * else the path escaped as escape(path, encodePath) escapes it.
 */
function escapedPath(u: GoURL): string {
  if (u.rawPath !== "" && /^[A-Za-z0-9\-._~!$&'()*+,;=:@[\]/%]*$/.test(u.rawPath)) {
    try {
      if (urlUnescape(u.rawPath, false) === u.path) return u.rawPath;
    } catch {
      // not a valid encoding: escape the path instead
    }
  }
  return u.path.replace(/[^A-Za-z0-9\-._~$&+,/:;=@]/g, (c) =>
    [...Buffer.from(c, "utf8")].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join(""),
  );
}

function hostnameAndPort(host: string): [string, string] {
  if (host.startsWith("[")) {
    const i = host.lastIndexOf("]");
    const port = host.slice(i + 1);
    return [host.slice(1, i), port.startsWith(":") ? port.slice(1) : ""];
  }
  const i = host.lastIndexOf(":");
  if (i < 0) return [host, ""];
  const port = host.slice(i + 1);
  return /^[0-9]*$/.test(port) ? [host.slice(0, i), port] : [host, ""];
}

/** Go's URL.Query(): pairs split on '&', unescaped; pairs that do not unescape are dropped. */
function query(raw: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of raw.split("&")) {
    if (pair === "" || pair.includes(";")) continue;
    const eq = pair.indexOf("=");
    try {
      const k = urlUnescape(eq < 0 ? pair : pair.slice(0, eq), true);
      const v = eq < 0 ? "" : urlUnescape(pair.slice(eq + 1), true);
      out.set(k, [...(out.get(k) ?? []), v]);
    } catch {
      // Go's ParseQuery skips what does not unescape
    }
  }
  return out;
}

const STRING = CelScalar.STRING;
const parsed = (s: string) => parseRequestURI(s);

export const urlLibrary: CelFunc[] = [
  celFunc("url", [STRING], STRING, (s: string) => {
    try {
      parseRequestURI(s);
    } catch (e) {
      throw celError(`URL parse error during conversion from string: ${(e as Error).message}`);
    }
    return s;
  }),
  celFunc("isURL", [STRING], CelScalar.BOOL, (s: string) => {
    try {
      parseRequestURI(s);
      return true;
    } catch {
      return false;
    }
  }),
  celMethod("getScheme", STRING, [], STRING, function (this: string) {
    return parsed(this).scheme;
  }),
  celMethod("getHost", STRING, [], STRING, function (this: string) {
    return parsed(this).host;
  }),
  celMethod("getHostname", STRING, [], STRING, function (this: string) {
    return hostnameAndPort(parsed(this).host)[0];
  }),
  celMethod("getPort", STRING, [], STRING, function (this: string) {
    return hostnameAndPort(parsed(this).host)[1];
  }),
  celMethod("getEscapedPath", STRING, [], STRING, function (this: string) {
    return escapedPath(parsed(this));
  }),
  celMethod("getQuery", STRING, [], mapType(STRING, listType(STRING)), function (this: string) {
    return query(parsed(this).rawQuery);
  }),
];
