// kube-apiserver's reading of `Accept`: goautoneg's parse and order, then k8s.io/apiserver's
// NegotiateMediaTypeOptions, which takes the first clause (and, within it, the first of the
// endpoint's serializers) whose parameters the endpoint allows. Resources, errors and discovery
// use it with their own serializers and restrictions, as kube does.

/** One `Accept` clause, as goautoneg.ParseAccept gives it. */
export interface AcceptClause {
  type: string;
  subType: string;
  q: number;
  params: Record<string, string>;
}

/** goautoneg's split: on the first `sep`, the rest unsplit. */
function splitOnce(s: string, sep: string): [string, string] {
  const at = s.indexOf(sep);
  return at < 0 ? [s, ""] : [s.slice(0, at), s.slice(at + 1)];
}

/** goautoneg trims spaces only (not tabs). */
const trimSpaces = (s: string) => s.replace(/^ +| +$/g, "");

/** Go's strconv.ParseFloat(s, 32) for a q value: 0 when it is no number. */
function parseQ(text: string): number {
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(text);
  if (special)
    return special[2].toLowerCase() === "nan" ? Number.NaN : special[1] === "-" ? -Infinity : Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return 0;
  return Math.fround(Number(text));
}

/** goautoneg's Less: a higher q, then a concrete type, then a concrete subtype comes first. */
function less(a: AcceptClause, b: AcceptClause): boolean {
  if (a.q > b.q) return true;
  if (a.type !== "*" && b.type === "*") return true;
  if (a.subType !== "*" && b.subType === "*") return true;
  return false;
}

/**
 * goautoneg.ParseAccept: every clause, q=0 ones too (kube does not drop them), sorted by Go's
 * sort.Sort, which for up to 12 clauses is an insertion sort (stable); longer headers are sorted
 * the same way here.
 */
export function parseAcceptClauses(header: string): AcceptClause[] {
  const out: AcceptClause[] = [];
  let remaining = header;
  while (remaining.length > 0) {
    let part: string;
    [part, remaining] = splitOnce(remaining, ",");
    part = trimSpaces(part);
    const [mediaRange, rawParams] = splitOnce(part, ";");
    const [typeText, subTypeRest] = splitOnce(mediaRange, "/");
    const clause: AcceptClause = { type: trimSpaces(typeText), subType: "", q: 1, params: {} };
    if (subTypeRest.length === 0) {
      if (clause.type !== "*") continue;
      clause.subType = "*";
    } else {
      const [subType, extra] = splitOnce(subTypeRest, "/");
      if (extra.length > 0) continue;
      clause.subType = trimSpaces(subType);
    }
    let params = rawParams;
    while (params.length > 0) {
      let param: string;
      [param, params] = splitOnce(params, ";");
      const [name, valueRest] = splitOnce(param, "=");
      if (valueRest.length === 0) continue;
      const [value, extra] = splitOnce(valueRest, "=");
      if (extra.length !== 0) continue;
      const token = trimSpaces(name);
      if (token === "q") clause.q = parseQ(value);
      else clause.params[token] = trimSpaces(value);
    }
    out.push(clause);
  }
  for (let i = 1; i < out.length; i++) {
    for (let j = i; j > 0 && less(out[j], out[j - 1]); j--) [out[j], out[j - 1]] = [out[j - 1], out[j]];
  }
  return out;
}

/** One serializer an endpoint offers (runtime.SerializerInfo). */
export interface SerializerInfo {
  mediaType: string;
  type: string;
  subType: string;
  /** Whether it has a stream serializer (a watch can be written in it). */
  stream: boolean;
}

function serializer(mediaType: string, stream: boolean): SerializerInfo {
  const [type, subType] = splitOnce(mediaType, "/");
  return { mediaType, type, subType, stream };
}

export const JSON_SERIALIZER = serializer("application/json", true);
export const YAML_SERIALIZER = serializer("application/yaml", false);
export const PROTOBUF_SERIALIZER = serializer("application/vnd.kubernetes.protobuf", true);

/** kube's codecs, in their order: every built-in endpoint, custom resources and errors offer these. */
export const KUBE_SERIALIZERS: readonly SerializerInfo[] = [
  JSON_SERIALIZER,
  YAML_SERIALIZER,
  PROTOBUF_SERIALIZER,
];

/** The transform a clause asks for with `as`, `g` and `v` (any of them). */
export interface Convert {
  group: string;
  version: string;
  kind: string;
}

/** What an endpoint lets a clause ask for (negotiation.EndpointRestrictions). */
export interface EndpointRestrictions {
  allowsMediaTypeTransform(s: SerializerInfo, convert: Convert | undefined): boolean;
  allowsServerVersion(version: string): boolean;
  allowsStreamSchema(schema: string): boolean;
}

/** negotiation.DefaultEndpointRestrictions: no transform, no server version, watch streams. */
export const DEFAULT_RESTRICTIONS: EndpointRestrictions = {
  allowsMediaTypeTransform: (_s, convert) => convert === undefined,
  allowsServerVersion: () => false,
  allowsStreamSchema: (schema) => schema === "watch",
};

/** negotiation.MediaTypeOptions: the serializer taken and what its clause asked for. */
export interface MediaTypeOptions {
  accepted: SerializerInfo;
  convert?: Convert;
  stream: string;
  pretty: boolean;
  profile: string;
}

function acceptMediaTypeOptions(
  params: Record<string, string>,
  accepts: SerializerInfo,
  endpoint: EndpointRestrictions,
): MediaTypeOptions | undefined {
  const options: MediaTypeOptions = { accepted: accepts, stream: "", pretty: false, profile: "" };
  for (const [k, v] of Object.entries(params)) {
    switch (k) {
      case "as":
        options.convert = { group: "", version: "", ...options.convert, kind: v };
        break;
      case "g":
        options.convert = { version: "", kind: "", ...options.convert, group: v };
        break;
      case "v":
        options.convert = { group: "", kind: "", ...options.convert, version: v };
        break;
      case "stream":
        if (v.length > 0 && (!accepts.stream || !endpoint.allowsStreamSchema(v))) return undefined;
        options.stream = v;
        break;
      case "sv":
        if (v.length > 0 && !endpoint.allowsServerVersion(v)) return undefined;
        break;
      case "pretty":
        options.pretty = v === "1";
        break;
      case "profile":
        options.profile = v;
        break;
    }
  }
  if (!endpoint.allowsMediaTypeTransform(accepts, options.convert)) return undefined;
  return options;
}

/**
 * negotiation.NegotiateMediaTypeOptions: the first clause, in goautoneg's order, that one of
 * `accepted` matches (exactly, `type/*` or `*\/*`; types compared as written) with parameters the
 * endpoint allows. No header at all takes the first serializer.
 */
export function negotiateMediaTypeOptions(
  header: string | undefined,
  accepted: readonly SerializerInfo[],
  endpoint: EndpointRestrictions,
): MediaTypeOptions | undefined {
  if (!header) {
    return accepted.length > 0
      ? { accepted: accepted[0], stream: "", pretty: false, profile: "" }
      : undefined;
  }
  for (const clause of parseAcceptClauses(header)) {
    for (const accepts of accepted) {
      const matches =
        (clause.type === accepts.type && (clause.subType === accepts.subType || clause.subType === "*")) ||
        (clause.type === "*" && clause.subType === "*");
      if (!matches) continue;
      const options = acceptMediaTypeOptions(clause.params, accepts, endpoint);
      if (options) return options;
    }
  }
  return undefined;
}

/** The media types kube's 406 names: the serializers', or their watch streams'. */
export function mediaTypesOf(serializers: readonly SerializerInfo[], streams = false): string[] {
  return streams
    ? serializers.filter((s) => s.stream).map((s) => `${s.mediaType};stream=watch`)
    : serializers.map((s) => s.mediaType);
}
