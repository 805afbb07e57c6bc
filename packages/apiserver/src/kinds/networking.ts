// NetworkPolicies and EndpointSlices: the protocol and policy-type defaults kube fills.
import { isIP } from "node:net";
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import { qualifiedNameErrors } from "controller-runtime/api";
import { dns1035LabelErrors, dns1123SubdomainErrors } from "../object/names.js";
import { cause } from "../status.js";
import type { Obj } from "../storage/index.js";
import type { KindBehaviour } from "./behaviour.js";
import { portNameErrors, portNumberErrors } from "./pod.js";

function defaultPorts(ports: unknown): void {
  if (!Array.isArray(ports)) return;
  for (const p of ports as Obj[]) if (p && typeof p === "object") p.protocol ??= "TCP";
}

export const networkPolicyBehaviour: KindBehaviour = {
  defaults(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    obj.spec = spec;
    for (const rule of [...((spec.ingress as Obj[]) ?? []), ...((spec.egress as Obj[]) ?? [])]) {
      if (rule && typeof rule === "object") defaultPorts(rule.ports);
    }
    if (!Array.isArray(spec.policyTypes) || spec.policyTypes.length === 0) {
      // A policy that names no types is at least an Ingress policy.
      spec.policyTypes =
        Array.isArray(spec.egress) && spec.egress.length > 0 ? ["Ingress", "Egress"] : ["Ingress"];
    }
  },
};

const ADDRESS_TYPES = ["FQDN", "IPv4", "IPv6"];

export const endpointSliceBehaviour: KindBehaviour = {
  defaults(obj) {
    if (!Array.isArray(obj.ports)) return;
    for (const p of obj.ports as Obj[]) {
      if (!p || typeof p !== "object") continue;
      p.name ??= "";
      p.protocol ??= "TCP";
    }
  },
  // ValidateEndpointSlice: a known address type, each endpoint with addresses of that type, port
  // names once each; ValidateEndpointSliceUpdate: the address type never changes, and addresses
  // are checked against it only on create (an update's are the old type's).
  validate(obj, old) {
    const causes: StatusCause[] = [];
    const ports = Array.isArray(obj.ports) ? (obj.ports as Obj[]) : [];
    const names = new Set<string>();
    ports.forEach((p, i) => {
      const name = String(p?.name ?? "");
      if (names.has(name)) causes.push(cause.duplicate(`ports[${i}].name`, name));
      names.add(name);
    });
    // kube compares pointers-to-type there and shows none.
    if (old && (obj.addressType ?? "") !== (old.addressType ?? ""))
      causes.push(cause.invalid("addressType", null, "field is immutable"));
    const given = obj.addressType;
    if (given === undefined || given === "") causes.push(cause.required("addressType"));
    else if (!old && !ADDRESS_TYPES.includes(given as string))
      causes.push(cause.notSupported("addressType", given, ADDRESS_TYPES));
    const type = old ? old.addressType : given;
    const endpoints = Array.isArray(obj.endpoints) ? (obj.endpoints as Obj[]) : [];
    endpoints.forEach((e, i) => {
      const addresses = Array.isArray(e?.addresses) ? (e.addresses as unknown[]) : [];
      const at = `endpoints[${i}].addresses`;
      if (addresses.length === 0) causes.push(cause.required(at, "must contain at least 1 address"));
      addresses.forEach((a, j) => {
        const value = String(a);
        if (type === "IPv4" && isIP(value) !== 4)
          causes.push(cause.invalid(`${at}[${j}]`, value, "must be a valid IPv4 address"));
        if (type === "IPv6" && isIP(value) !== 6)
          causes.push(cause.invalid(`${at}[${j}]`, value, "must be a valid IPv6 address"));
      });
    });
    return causes;
  },
};

/** validateIngressBackend: a service backend's name and port, or a resource. */
function backendCauses(backend: Obj, path: string): StatusCause[] {
  const service = backend.service as Obj | undefined;
  const resource = backend.resource as Obj | undefined;
  if (service && resource) return [cause.invalid(path, "", "cannot set both resource and service backends")];
  if (resource) return [];
  if (!service) return [cause.invalid(path, "", "resource or service backend is required")];
  const causes: StatusCause[] = [];
  const name = typeof service.name === "string" ? service.name : "";
  if (name === "") causes.push(cause.required(`${path}.service.name`));
  else
    for (const msg of dns1035LabelErrors(name)) causes.push(cause.invalid(`${path}.service.name`, name, msg));
  const port = (service.port ?? {}) as Obj;
  const portName = typeof port.name === "string" ? port.name : "";
  const portNumber = typeof port.number === "number" ? port.number : 0;
  if (portName && portNumber) causes.push(cause.invalid(path, "", "cannot set both port name & port number"));
  else if (portName)
    for (const msg of portNameErrors(portName))
      causes.push(cause.invalid(`${path}.service.port.name`, portName, msg));
  else if (portNumber)
    for (const msg of portNumberErrors(portNumber))
      causes.push(cause.invalid(`${path}.service.port.number`, portNumber, msg));
  else causes.push(cause.required(path, "port name or number is required"));
  return causes;
}

const WILDCARD_SUBDOMAIN = /^\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** validateIngressRules' host: a DNS name (a wildcard one when it has a '*'), not an address. */
function ingressHostCauses(host: string, path: string): StatusCause[] {
  if (host === "") return [];
  const causes: StatusCause[] = [];
  if (isIP(host) !== 0) causes.push(cause.invalid(path, host, "must be a DNS name, not an IP address"));
  if (host.includes("*")) {
    if (host.length > 253) causes.push(cause.invalid(path, host, "must be no more than 253 characters"));
    if (!WILDCARD_SUBDOMAIN.test(host))
      causes.push(
        cause.invalid(
          path,
          host,
          "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ),
      );
  } else for (const msg of dns1123SubdomainErrors(host)) causes.push(cause.invalid(path, host, msg));
  return causes;
}

export const ingressBehaviour: KindBehaviour = {
  // ValidateIngressSpec: a default backend or rules, each backend valid.
  validate(obj) {
    const spec = (obj.spec ?? {}) as Obj;
    const rules = Array.isArray(spec.rules) ? spec.rules : [];
    const causes: StatusCause[] = [];
    if (rules.length === 0 && !spec.defaultBackend) {
      causes.push(cause.invalid("spec", rules, "either `defaultBackend` or `rules` must be specified"));
    }
    if (spec.defaultBackend && typeof spec.defaultBackend === "object") {
      causes.push(...backendCauses(spec.defaultBackend as Obj, "spec.defaultBackend"));
    }
    rules.forEach((rule, i) => {
      const host = typeof (rule as Obj | null)?.host === "string" ? ((rule as Obj).host as string) : "";
      causes.push(...ingressHostCauses(host, `spec.rules[${i}].host`));
    });
    return causes;
  },
};

export const ingressClassBehaviour: KindBehaviour = {
  // validateIngressClassSpec: a controller named as a domain-prefixed path.
  validate(obj, old) {
    const controller = String(((obj.spec ?? {}) as Obj).controller ?? "");
    // ValidateIngressClassUpdate: the controller never changes.
    if (old) {
      const was = String(((old.spec ?? {}) as Obj).controller ?? "");
      if (controller !== was) {
        const causes = [cause.invalid("spec.controller", controller, "field is immutable")];
        if (controller === "") causes.push(cause.required("spec.controller"));
        return causes;
      }
    }
    if (controller === "") return [cause.required("spec.controller")];
    const [domain] = controller.split("/");
    const errs = controller.includes("/")
      ? qualifiedNameErrors(domain)
      : ['must be a domain-prefixed path (such as "acme.io/foo")'];
    if (/\s/.test(controller) && errs.length === 0)
      errs.push('must be a domain-prefixed path (such as "acme.io/foo")');
    return errs.map((m) => cause.invalid("spec.controller", controller, m));
  },
};
