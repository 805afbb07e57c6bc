// Gateway API's CEL rules (test/support/gateway-api-rules.ts) against objects each rule must
// let through or refuse, the refusals as kube-apiserver words them. The same cases run in every
// mode: the embedded server, KUBEBUILDER_ASSETS' real kube-apiserver, an existing cluster; so the
// expectations below were read off kube-apiserver 1.26.1 and the embedded server must agree.
// Causes are compared as sets: kube reports the rules of sibling fields in Go map order.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { GATEWAY_GROUP, gatewayApiCRDs } from "../support/gateway-api-rules.js";
import { Api, CRDS, startTarget, type Target } from "./harness.js";

type Cause = [field: string, message: string];
interface Case {
  kind: keyof typeof gatewayApiCRDs;
  name: string;
  spec: object;
  /** The causes of the 422 refusing it; [] when it is created. */
  refused: Cause[];
  /** A spec to update it to, and the causes refusing that update ([] when it is made). */
  update?: object;
  updated?: Cause[];
}

/**
 * A rule's cause: a rule that failed prints no value for an object or a list, the value itself for
 * a scalar (`value`, JSON-quoted); one that could not be evaluated prints the schema type (kube 1.37).
 */
const rule = (field: string, type: string, message: string, value?: string): Cause => [
  field,
  / evaluating rule: /.test(message)
    ? `Invalid value: "${type}": ${message}`
    : value !== undefined
      ? `Invalid value: ${JSON.stringify(value)}: ${message}`
      : `Invalid value: ${message}`,
];

const gw = (listeners: object[], more: object = {}) => ({ gatewayClassName: "foo", listeners, ...more });
const http80 = { name: "http", protocol: "HTTP", port: 80 };
const route = (rules: object[], more: object = {}) => ({ parentRefs: [{ name: "gw" }], rules, ...more });
const match = (type: string, value: string) => ({ matches: [{ path: { type, value } }] });
const svc = { name: "svc", port: 80 };
const filter = (f: object) => ({ filters: [f] });
const header = (name: string) => ({
  type: "RequestHeaderModifier",
  requestHeaderModifier: { add: [{ name, value: "v" }] },
});
const prefixRewrite = {
  type: "URLRewrite",
  urlRewrite: { path: { type: "ReplacePrefixMatch", replacePrefixMatch: "/b" } },
};
const manyMatches = Array.from({ length: 3 }, () => ({
  matches: Array.from({ length: 50 }, (_, i) => ({ path: { value: `/p${i}` } })),
}));

// biome-ignore format: one case a line reads as a table
const cases: Case[] = [
{ kind: "Gateway", name: "g-ok", spec: gw([http80]), refused: [] },
{ kind: "Gateway", name: "g-tls-http", spec: gw([{ ...http80, tls: {} }]), refused: [rule("spec.listeners", "array", "tls must not be specified for protocols ['HTTP', 'TCP', 'UDP']"), rule("spec.listeners[0].tls", "object", "no such key: certificateRefs evaluating rule: certificateRefs or options must be specified when mode is Terminate")] },
{ kind: "Gateway", name: "g-https-passthrough", spec: gw([{ name: "https", protocol: "HTTPS", port: 443, tls: { mode: "Passthrough" } }]), refused: [rule("spec.listeners", "array", "tls mode must be Terminate for protocol HTTPS")] },
{ kind: "Gateway", name: "g-https-ok", spec: gw([{ name: "https", protocol: "HTTPS", port: 443, tls: { certificateRefs: [{ name: "cert" }] } }]), refused: [] },
{ kind: "Gateway", name: "g-https-nocert", spec: gw([{ name: "https", protocol: "HTTPS", port: 443, tls: {} }]), refused: [rule("spec.listeners[0].tls", "object", "no such key: certificateRefs evaluating rule: certificateRefs or options must be specified when mode is Terminate")] },
{ kind: "Gateway", name: "g-tcp-hostname", spec: gw([{ name: "tcp", protocol: "TCP", port: 9000, hostname: "a.example.com" }]), refused: [rule("spec.listeners", "array", "hostname must not be specified for protocols ['TCP', 'UDP']")] },
{ kind: "Gateway", name: "g-dup-name", spec: gw([http80, { ...http80, port: 81 }]), refused: [["spec.listeners[1]", "Duplicate value: {\"name\":\"http\"}"], rule("spec.listeners", "array", "Listener name must be unique within the Gateway")] },
{ kind: "Gateway", name: "g-dup-combo", spec: gw([http80, { ...http80, name: "http2" }]), refused: [rule("spec.listeners", "array", "Combination of port, protocol and hostname must be unique for each listener")] },
{ kind: "Gateway", name: "g-combo-hostnames", spec: gw([{ ...http80, hostname: "a.example.com" }, { ...http80, name: "b", hostname: "b.example.com" }]), refused: [] },
{ kind: "Gateway", name: "g-dup-ip", spec: gw([http80], { addresses: [{ value: "10.0.0.1" }, { type: "IPAddress", value: "10.0.0.1" }] }), refused: [rule("spec.addresses", "array", "IPAddress values must be unique")] },
{ kind: "Gateway", name: "g-dup-host", spec: gw([http80], { addresses: [{ type: "Hostname", value: "a.example.com" }, { type: "Hostname", value: "a.example.com" }] }), refused: [rule("spec.addresses", "array", "Hostname values must be unique")] },
{ kind: "Gateway", name: "g-bad-host", spec: gw([http80], { addresses: [{ type: "Hostname", value: "Foo_bar" }] }), refused: [rule("spec.addresses[0]", "object", "Hostname value must only contain valid characters (matching ^(\\*\\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$)")] },
{ kind: "Gateway", name: "g-bad-ip", spec: gw([http80], { addresses: [{ type: "IPAddress", value: "not-an-ip" }] }), refused: [["<nil>", "Invalid value: \"\": \"spec.addresses[0]\" must validate one and only one schema (oneOf). Found none valid"], ["<nil>", "Invalid value: \"\": \"spec.addresses[0].value\" must validate at least one schema (anyOf)"], ["spec.addresses[0].value", "Invalid value: \"not-an-ip\": spec.addresses[0].value in body must be of type ipv4: \"not-an-ip\""], ["<nil>", "Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"]] },
{ kind: "Gateway", name: "g-ipv6", spec: gw([http80], { addresses: [{ value: "fd00::1" }, { type: "Hostname", value: "*.example.com" }] }), refused: [] },
{ kind: "Gateway", name: "g-infra-labels", spec: gw([http80], { infrastructure: { labels: { "-bad": "x", "example.com/ok": "y" }, annotations: { [`${"a".repeat(253)}/b`]: "z" } } }), refused: [rule("spec.infrastructure.annotations", "object", "If specified, the annotation key's prefix must be a DNS subdomain not longer than 253 characters in total."), rule("spec.infrastructure.labels", "object", "Label keys must be in the form of an optional DNS subdomain prefix followed by a required name segment of up to 63 characters.")] },
{ kind: "Gateway", name: "g-infra-ok", spec: gw([http80], { infrastructure: { labels: { "example.com/ok": "y" }, annotations: { a: "b" } } }), refused: [] },
{ kind: "HTTPRoute", name: "h-ok", spec: route([{ ...match("PathPrefix", "/"), backendRefs: [svc] }]), refused: [] },
{ kind: "HTTPRoute", name: "h-relative", spec: route([match("Exact", "foo")]), refused: [rule("spec.rules[0].matches[0].path", "object", "value must be an absolute path and start with '/' when type one of ['Exact', 'PathPrefix']")] },
{ kind: "HTTPRoute", name: "h-double-slash", spec: route([match("PathPrefix", "/a//b")]), refused: [rule("spec.rules[0].matches[0].path", "object", "must not contain '//' when type one of ['Exact', 'PathPrefix']")] },
{ kind: "HTTPRoute", name: "h-escaped-slash", spec: route([match("PathPrefix", "/a%2fb")]), refused: [rule("spec.rules[0].matches[0].path", "object", "must not contain '%2f' when type one of ['Exact', 'PathPrefix']")] },
{ kind: "HTTPRoute", name: "h-dotdot", spec: route([match("Exact", "/a/..")]), refused: [rule("spec.rules[0].matches[0].path", "object", "must not end with '/..' when type one of ['Exact', 'PathPrefix']")] },
{ kind: "HTTPRoute", name: "h-space", spec: route([match("Exact", "/a b#c")]), refused: [rule("spec.rules[0].matches[0].path", "object", "must not contain '#' when type one of ['Exact', 'PathPrefix']"), rule("spec.rules[0].matches[0].path", "object", "must only contain valid characters (matching ^(?:[-A-Za-z0-9/._~!$&'()*+,;=:@]|[%][0-9a-fA-F]{2})+$) for types ['Exact', 'PathPrefix']")] },
{ kind: "HTTPRoute", name: "h-regex", spec: route([match("RegularExpression", "/a b(")]), refused: [] },
{ kind: "HTTPRoute", name: "h-default-path", spec: route([{ matches: [{ path: { value: "nope" } }] }]), refused: [rule("spec.rules[0].matches[0].path", "object", "value must be an absolute path and start with '/' when type one of ['Exact', 'PathPrefix']")] },
{ kind: "HTTPRoute", name: "h-no-port", spec: route([{ backendRefs: [{ name: "svc" }] }]), refused: [rule("spec.rules[0].backendRefs[0]", "object", "Must have port for Service reference")] },
{ kind: "HTTPRoute", name: "h-other-kind", spec: route([{ backendRefs: [{ name: "b", group: "example.com", kind: "Bucket" }] }]), refused: [] },
{ kind: "HTTPRoute", name: "h-filter-missing", spec: route([filter({ type: "RequestHeaderModifier" })]), refused: [rule("spec.rules[0].filters[0]", "object", "filter.requestHeaderModifier must be specified for RequestHeaderModifier filter.type")] },
{ kind: "HTTPRoute", name: "h-filter-mismatch", spec: route([filter({ type: "URLRewrite", requestHeaderModifier: { set: [{ name: "a", value: "b" }] } })]), refused: [rule("spec.rules[0].filters[0]", "object", "filter.requestHeaderModifier must be nil if the filter.type is not RequestHeaderModifier"), rule("spec.rules[0].filters[0]", "object", "filter.urlRewrite must be specified for URLRewrite filter.type")] },
{ kind: "HTTPRoute", name: "h-filter-repeat", spec: route([{ filters: [header("a"), header("c")] }]), refused: [rule("spec.rules[0].filters", "array", "RequestHeaderModifier filter cannot be repeated")] },
{ kind: "HTTPRoute", name: "h-redirect-rewrite", spec: route([{ filters: [{ type: "RequestRedirect", requestRedirect: { hostname: "a.example.com" } }, { type: "URLRewrite", urlRewrite: { hostname: "b.example.com" } }] }]), refused: [rule("spec.rules[0].filters", "array", "May specify either httpRouteFilterRequestRedirect or httpRouteFilterRequestRewrite, but not both")] },
{ kind: "HTTPRoute", name: "h-redirect-backend", spec: route([{ ...filter({ type: "RequestRedirect", requestRedirect: { statusCode: 301 } }), backendRefs: [svc] }]), refused: [rule("spec.rules[0]", "object", "RequestRedirect filter must not be used together with backendRefs")] },
{ kind: "HTTPRoute", name: "h-prefix-rewrite-exact", spec: route([{ ...match("Exact", "/a"), ...filter(prefixRewrite) }]), refused: [rule("spec.rules[0]", "object", "When using URLRewrite filter with path.replacePrefixMatch, exactly one PathPrefix match must be specified")] },
{ kind: "HTTPRoute", name: "h-prefix-rewrite-ok", spec: route([{ ...match("PathPrefix", "/a"), ...filter(prefixRewrite) }]), refused: [] },
{ kind: "HTTPRoute", name: "h-fullpath-missing", spec: route([filter({ type: "URLRewrite", urlRewrite: { path: { type: "ReplaceFullPath", replacePrefixMatch: "/b" } } })]), refused: [rule("spec.rules[0].filters[0].urlRewrite.path", "object", "replaceFullPath must be specified when type is set to 'ReplaceFullPath'"), rule("spec.rules[0].filters[0].urlRewrite.path", "object", "type must be 'ReplacePrefixMatch' when replacePrefixMatch is set")] },
{ kind: "HTTPRoute", name: "h-backend-filter-prefix", spec: route([{ ...match("Exact", "/a"), backendRefs: [{ ...svc, filters: [prefixRewrite] }] }]), refused: [rule("spec.rules[0]", "object", "Within backendRefs, When using URLRewrite filter with path.replacePrefixMatch, exactly one PathPrefix match must be specified")] },
{ kind: "HTTPRoute", name: "h-timeouts-bad", spec: route([{ timeouts: { request: "5s", backendRequest: "10s" } }]), refused: [rule("spec.rules[0].timeouts", "object", "backendRequest timeout cannot be longer than request timeout")] },
{ kind: "HTTPRoute", name: "h-timeouts-ok", spec: route([{ timeouts: { request: "10s", backendRequest: "1m" } }, { timeouts: { request: "0s", backendRequest: "1h" } }]), refused: [rule("spec.rules[0].timeouts", "object", "backendRequest timeout cannot be longer than request timeout")] },
{ kind: "HTTPRoute", name: "h-timeouts-format", spec: route([{ timeouts: { request: "5 seconds" } }]), refused: [["spec.rules[0].timeouts.request", "Invalid value: \"5 seconds\": spec.rules[0].timeouts.request in body should match '^([0-9]{1,5}(h|m|s|ms)){1,4}$'"]] },
{ kind: "HTTPRoute", name: "h-parents-dup", spec: route([], { parentRefs: [{ name: "gw" }, { name: "gw" }] }), refused: [rule("spec.parentRefs", "array", "sectionName must be unique when parentRefs includes 2 or more references to the same parent")] },
{ kind: "HTTPRoute", name: "h-parents-section", spec: route([], { parentRefs: [{ name: "gw", sectionName: "a" }, { name: "gw" }] }), refused: [rule("spec.parentRefs", "array", "sectionName must be specified when parentRefs includes 2 or more references to the same parent")] },
{ kind: "HTTPRoute", name: "h-parents-ns", spec: route([], { parentRefs: [{ name: "gw", namespace: "a" }, { name: "gw", namespace: "b" }] }), refused: [] },
{ kind: "HTTPRoute", name: "h-many-matches", spec: route(manyMatches), refused: [rule("spec.rules", "array", "While 16 rules and 64 matches per rule are allowed, the total number of matches across all rules in a route must be less than 128")] },
{ kind: "HTTPRoute", name: "h-mirror", spec: route([filter({ type: "RequestMirror", requestMirror: { backendRef: { name: "svc" } } })]), refused: [rule("spec.rules[0].filters[0].requestMirror.backendRef", "object", "Must have port for Service reference")] },
{ kind: "GRPCRoute", name: "r-ok", spec: { rules: [{ matches: [{ method: { service: "foo.Bar", method: "Baz" } }] }] }, refused: [] },
{ kind: "GRPCRoute", name: "r-empty-method", spec: { rules: [{ matches: [{ method: {} }] }] }, refused: [rule("spec.rules[0].matches[0].method", "object", "One or both of 'service' or 'method' must be specified")] },
{ kind: "GRPCRoute", name: "r-bad-service", spec: { rules: [{ matches: [{ method: { service: "foo-bar" } }] }] }, refused: [rule("spec.rules[0].matches[0].method", "object", "service must only contain valid characters (matching ^(?i)\\.?[a-z_][a-z_0-9]*(\\.[a-z_][a-z_0-9]*)*$)")] },
{ kind: "GRPCRoute", name: "r-bad-method", spec: { rules: [{ matches: [{ method: { method: "1abc" } }] }] }, refused: [rule("spec.rules[0].matches[0].method", "object", "method must only contain valid characters (matching ^[A-Za-z_][A-Za-z_0-9]*$)")] },
{ kind: "GRPCRoute", name: "r-regex-method", spec: { rules: [{ matches: [{ method: { type: "RegularExpression", method: "1abc" } }] }] }, refused: [] },
{ kind: "GRPCRoute", name: "r-case", spec: { rules: [{ matches: [{ method: { service: ".FOO.bar_1" } }] }] }, refused: [] },
{ kind: "GRPCRoute", name: "r-filters", spec: { rules: [{ filters: [{ type: "ResponseHeaderModifier" }, { type: "RequestMirror", requestMirror: { backendRef: { name: "s", port: 1 } }, extensionRef: { group: "", kind: "K", name: "n" } }] }] }, refused: [rule("spec.rules[0].filters[0]", "object", "filter.responseHeaderModifier must be specified for ResponseHeaderModifier filter.type"), rule("spec.rules[0].filters[1]", "object", "filter.extensionRef must be nil if the filter.type is not ExtensionRef")] },
{ kind: "GatewayClass", name: "c-immutable", spec: { controllerName: "example.com/a" }, update: { controllerName: "example.com/b" }, refused: [], updated: [rule("spec.controllerName", "string", "Value is immutable", "example.com/b")] },
{ kind: "GatewayClass", name: "c-same", spec: { controllerName: "example.com/a" }, update: { controllerName: "example.com/a", description: "x" }, refused: [], updated: [] },
];

let target: Target;
let api: Api;
const collections: Record<string, string> = {};

before(async () => {
  target = await startTarget();
  api = new Api(target);
  for (const [kind, crd] of Object.entries(gatewayApiCRDs)) {
    const created = await api.post(CRDS, crd);
    assert.equal(created.status, 201, created.text);
    const { scope, names } = crd.spec as { scope: string; names: { plural: string } };
    const ns = scope === "Namespaced" ? "namespaces/default/" : "";
    collections[kind] = `/apis/${GATEWAY_GROUP}/v1/${ns}${names.plural}`;
  }
  for (const path of Object.values(collections)) {
    await eventually("the CRD served", async () => (await api.get(path)).status === 200, {
      timeoutMs: 30_000,
    });
  }
});
after(async () => {
  for (const crd of Object.values(gatewayApiCRDs)) {
    await api.delete(`${CRDS}/${(crd.metadata as { name: string }).name}`);
  }
  await target.close();
});

const sorted = (causes: Cause[]) => [...causes].sort((a, b) => (a.join("\n") < b.join("\n") ? -1 : 1));
// biome-ignore lint/suspicious/noExplicitAny: a Status body
const causesOf = (body: any): Cause[] =>
  (body.details?.causes ?? []).map((c: { field: string; message: string }) => [c.field, c.message]);

describe("Gateway API's CEL rules", () => {
  for (const c of cases) {
    test(`${c.kind} ${c.name}`, async () => {
      const collection = collections[c.kind]!;
      const body = {
        apiVersion: `${GATEWAY_GROUP}/v1`,
        kind: c.kind,
        metadata: { name: c.name },
        spec: c.spec,
      };
      const created = await api.post(collection, body);
      if (c.refused.length === 0) assert.equal(created.status, 201, created.text);
      else {
        assert.equal(created.status, 422, created.text);
        assert.deepEqual(sorted(causesOf(created.body)), sorted(c.refused));
      }
      if (c.update === undefined) return;
      const updated = await api.call("PUT", `${collection}/${c.name}`, { ...created.body, spec: c.update });
      if (c.updated?.length) {
        assert.equal(updated.status, 422, updated.text);
        assert.deepEqual(sorted(causesOf(updated.body)), sorted(c.updated));
      } else assert.equal(updated.status, 200, updated.text);
    });
  }
});
