// A ResourceClaim's status as kube checks a driver's or scheduler's write (ValidateResourceClaim-
// StatusUpdate): the consumers it is reserved for, named and each once, and only while allocated;
// an allocation fixed once made, a new one's results naming the claim's requests; device
// statuses for allocated devices only, each once, with metav1 conditions (those already stored are
// not checked again).
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { jsonEqual } from "../object/deep-json.js";
import { dns1123LabelErrors, dns1123SubdomainErrors } from "../object/names.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import { metaConditionCauses } from "./conditions.js";
import { poolNameCauses } from "./dynamic-resources.js";

const RESERVED_FOR_MAX = 256;
const DEVICE_CONDITIONS_MAX = 8;

const objects = (v: unknown): Obj[] =>
  Array.isArray(v) ? (v as unknown[]).map((x) => (x && typeof x === "object" ? (x as Obj) : {})) : [];
const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** A driver's name: a DNS subdomain of at most 63 bytes. */
function driverNameCauses(name: string, path: string): StatusCause[] {
  if (name === "") return [cause.required(path)];
  const causes = dns1123SubdomainErrors(name).map((m) => cause.invalid(path, name, m));
  if (name.length > 63)
    causes.push({
      reason: "FieldValueTooLong",
      message: "Too long: may not be more than 63 bytes",
      field: path,
    });
  return causes;
}

/** A device: its driver, pool and name, as a result or a status names it. */
function deviceCauses(d: Obj, path: string): StatusCause[] {
  return [
    ...driverNameCauses(str(d.driver), `${path}.driver`),
    ...poolNameCauses(str(d.pool), `${path}.pool`),
    ...dns1123LabelErrors(str(d.device)).map((m) => cause.invalid(`${path}.device`, str(d.device), m)),
  ];
}

const deviceID = (d: Obj) =>
  `${str(d.driver)}/${str(d.pool)}/${str(d.device)}${d.shareID ? `/${str(d.shareID)}` : ""}`;

export function resourceClaimStatusCauses(obj: Obj, old: Readonly<Obj>): StatusCause[] {
  const causes: StatusCause[] = [];
  const status = (obj.status ?? {}) as Obj;
  const oldStatus = (old.status ?? {}) as Obj;
  const reservedFor = objects(status.reservedFor);
  if (reservedFor.length > RESERVED_FOR_MAX)
    causes.push({
      reason: "FieldValueTooMany",
      message: `Too many: ${reservedFor.length}: must have at most ${RESERVED_FOR_MAX} items`,
      field: "status.reservedFor",
    });
  const uids = new Set<string>();
  for (const [i, ref] of reservedFor.entries()) {
    const at = `status.reservedFor[${i}]`;
    for (const k of ["resource", "name", "uid"])
      if (str(ref[k]) === "") causes.push(cause.required(`${at}.${k}`));
    if (uids.has(str(ref.uid))) causes.push(cause.duplicate(at, ref));
    uids.add(str(ref.uid));
  }
  const allocation = status.allocation as Obj | undefined;
  const results = objects((allocation?.devices as Obj | undefined)?.results);
  const allocated = new Set(results.map(deviceID));
  const seen = new Set<string>();
  const before = objects(oldStatus.devices);
  for (const [i, d] of objects(status.devices).entries()) {
    const at = `status.devices[${i}]`;
    if (seen.has(deviceID(d))) causes.push(cause.duplicate(at, deviceID(d)));
    seen.add(deviceID(d));
    // A device status stored before is not checked again (kube ratchets the list's items).
    if (before.some((b) => jsonEqual(b, d))) continue;
    causes.push(...deviceCauses(d, at));
    if (!allocated.has(deviceID(d)))
      causes.push(cause.invalid(at, deviceID(d), "must be an allocated device in the claim"));
    const conditions = objects(d.conditions);
    if (conditions.length > DEVICE_CONDITIONS_MAX)
      causes.push({
        reason: "FieldValueTooMany",
        message: `Too many: ${conditions.length}: must have at most ${DEVICE_CONDITIONS_MAX} items`,
        field: `${at}.conditions`,
      });
    causes.push(...metaConditionCauses(d.conditions, `${at}.conditions`));
  }
  if (reservedFor.length > 0 && !allocation)
    causes.push(cause.forbidden("status.reservedFor", "may not be specified when `allocated` is not set"));
  const oldAllocation = oldStatus.allocation;
  if (allocation && oldAllocation) {
    if (!jsonEqual(allocation, oldAllocation))
      causes.push(cause.invalid("status.allocation", allocation, "field is immutable"));
  } else if (allocation) {
    const requests = new Set(
      objects(((obj.spec as Obj | undefined)?.devices as Obj | undefined)?.requests).flatMap((r) => [
        str(r.name),
        ...objects(r.firstAvailable).map((s) => `${str(r.name)}/${str(s.name)}`),
      ]),
    );
    for (const [i, r] of results.entries()) {
      const at = `status.allocation.devices.results[${i}]`;
      if (!requests.has(str(r.request)))
        causes.push(
          cause.invalid(
            `${at}.request`,
            str(r.request),
            "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'",
          ),
        );
      causes.push(...deviceCauses(r, at));
    }
  }
  return causes;
}
