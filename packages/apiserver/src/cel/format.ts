// Kubernetes' format library (kube 1.31+, library/format.go): named string formats whose
// `validate(s)` is optional.none() when `s` is valid and else the list of apimachinery's
// messages, e.g. `!format.dns1123Label().validate(self).hasValue()`. A format travels as a
// tagged value holding its name (tagged.ts).
import { type CelFunc, type CelMap, CelScalar, celFunc, celList, celMethod, mapType } from "@bufbuild/cel";
import { labelValueErrors, qualifiedNameErrors } from "controller-runtime/api";
import { dns1035LabelErrors, dns1123LabelErrors, dns1123SubdomainErrors } from "../object/names.js";
import { checkFormat } from "../schema/formats.js";
import { optionalOf } from "./optional.js";
import { tagged, untag } from "./tagged.js";
import { parseRequestURI } from "./url.js";

const TAG = "\u0000format";
const FORMAT = mapType(CelScalar.STRING, CelScalar.STRING);

/** apimachinery's NameIs…(s, prefix): a generateName prefix may end in '-'. */
const prefixed = (errors: (s: string) => string[]) => (s: string) =>
  errors(s.length > 1 && s.endsWith("-") ? `${s.slice(0, -2)}a` : s);
const strfmt = (name: string, message: string) => (s: string) => (checkFormat(name, s) ? [] : [message]);

const FORMATS: Record<string, (s: string) => string[]> = {
  dns1123Label: dns1123LabelErrors,
  dns1123Subdomain: dns1123SubdomainErrors,
  dns1035Label: dns1035LabelErrors,
  qualifiedName: qualifiedNameErrors,
  dns1123LabelPrefix: prefixed(dns1123LabelErrors),
  dns1123SubdomainPrefix: prefixed(dns1123SubdomainErrors),
  dns1035LabelPrefix: prefixed(dns1035LabelErrors),
  labelValue: labelValueErrors,
  uri: (s) => {
    try {
      parseRequestURI(s);
      return [];
    } catch (e) {
      return [(e as Error).message];
    }
  },
  uuid: strfmt("uuid", "does not match the UUID format"),
  byte: strfmt("byte", "invalid base64"),
  date: strfmt("date", "invalid date"),
  datetime: strfmt("date-time", "invalid datetime"),
};

export const formatLibrary: CelFunc[] = [
  ...Object.keys(FORMATS).map((name) => celFunc(`format.${name}`, [], FORMAT, () => tagged(TAG, name))),
  celFunc("format.named", [CelScalar.STRING], mapType(CelScalar.STRING, CelScalar.DYN), (name: string) =>
    optionalOf(Object.hasOwn(FORMATS, name) ? tagged(TAG, name) : undefined),
  ),
  celMethod(
    "validate",
    FORMAT,
    [CelScalar.STRING],
    mapType(CelScalar.STRING, CelScalar.DYN),
    function (this: CelMap, s: string) {
      const errors = FORMATS[untag(this, TAG)]!(s);
      return optionalOf(errors.length === 0 ? undefined : celList(errors));
    },
  ),
];
