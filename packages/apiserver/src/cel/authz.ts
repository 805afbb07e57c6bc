// Kubernetes' authz library (library/authz.go) for admission expressions: the `authorizer`
// variable asks the server's authorizer about the requesting user, as kube's match conditions and
// admission policies may (`authorizer.group('apps').resource('deployments').namespace('ns')
// .check('update').allowed()`, `authorizer.path('/healthz').check('get')`,
// `authorizer.serviceAccount(ns, name)`, `authorizer.requestResource.check(verb)`, and a
// decision's allowed(), reason(), errored(), error()).
//
// Checks, authorizers and decisions travel as tagged values (tagged.ts) holding their JSON. The
// authorizer a check asks is the one of the request being evaluated (`withAuthorizer`), so no
// function rides inside a CEL value.
import {
  type CelFunc,
  type CelMap,
  CelScalar,
  type CelValue,
  celError,
  celMap,
  celMethod,
  mapType,
} from "@bufbuild/cel";
import type { AccessAttributes, AccessDecision, UserInfo } from "../handlers/context.js";
import { tagged, untag } from "./tagged.js";

export type Decide = (a: AccessAttributes) => AccessDecision;

const AUTHORIZER = "\u0000authorizer";
const PATH_CHECK = "\u0000pathCheck";
const GROUP_CHECK = "\u0000groupCheck";
const RESOURCE_CHECK = "\u0000resourceCheck";
const DECISION = "\u0000decision";
const STRING = CelScalar.STRING;
const TAGGED = mapType(STRING, CelScalar.DYN);

interface ResourceCheck {
  user: UserInfo;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

let decider: Decide | undefined;

/** Runs `evaluate` with checks answered by `decide` (the server's authorizer). */
export function withAuthorizer<T>(decide: Decide, evaluate: () => T): T {
  const before = decider;
  decider = decide;
  try {
    return evaluate();
  } finally {
    decider = before;
  }
}

/** The request's resource, as `authorizer.requestResource` checks it. */
export interface RequestResource {
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

/** The `authorizer` variable for a request by `user`. */
export function authorizerValue(user: UserInfo, request: RequestResource): CelMap {
  const requestResource: ResourceCheck = { user, ...request };
  return celMap(
    new Map<string, CelValue>([
      [AUTHORIZER, JSON.stringify(user)],
      ["requestResource", tagged(RESOURCE_CHECK, JSON.stringify(requestResource))],
    ]),
  );
}

const read = <T>(v: CelMap, tag: string): T => JSON.parse(untag(v, tag)) as T;
const as = (tag: string, value: object) => tagged(tag, JSON.stringify(value));

function decide(a: Omit<AccessAttributes, "apiVersion">): CelMap {
  if (!decider) throw celError("no authorizer");
  const d = decider({ ...a, apiVersion: "*" });
  return as(DECISION, { allowed: d.allowed, reason: d.reason, error: "" });
}

function serviceAccount(namespace: string, name: string): UserInfo {
  return {
    name: `system:serviceaccount:${namespace}:${name}`,
    groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`, "system:authenticated"],
  };
}

/** A method of a resource check that sets one of its fields. */
const setter = (field: "subresource" | "namespace" | "name") =>
  celMethod(field, TAGGED, [STRING], TAGGED, function (this: CelMap, value: string) {
    return as(RESOURCE_CHECK, { ...read<ResourceCheck>(this, RESOURCE_CHECK), [field]: value });
  });

export const authzLibrary: CelFunc[] = [
  celMethod("path", TAGGED, [STRING], TAGGED, function (this: CelMap, path: string) {
    return as(PATH_CHECK, { user: read<UserInfo>(this, AUTHORIZER), path });
  }),
  celMethod("group", TAGGED, [STRING], TAGGED, function (this: CelMap, group: string) {
    return as(GROUP_CHECK, { user: read<UserInfo>(this, AUTHORIZER), group });
  }),
  celMethod(
    "serviceAccount",
    TAGGED,
    [STRING, STRING],
    TAGGED,
    function (this: CelMap, namespace: string, name: string) {
      read<UserInfo>(this, AUTHORIZER);
      return celMap(new Map([[AUTHORIZER, JSON.stringify(serviceAccount(namespace, name))]]));
    },
  ),
  celMethod("resource", TAGGED, [STRING], TAGGED, function (this: CelMap, resource: string) {
    const g = read<{ user: UserInfo; group: string }>(this, GROUP_CHECK);
    const check: ResourceCheck = { ...g, resource, subresource: "", namespace: "", name: "" };
    return as(RESOURCE_CHECK, check);
  }),
  setter("subresource"),
  setter("namespace"),
  setter("name"),
  celMethod("check", TAGGED, [STRING], TAGGED, function (this: CelMap, verb: string) {
    if (typeof this.get(PATH_CHECK) === "string") {
      const p = read<{ user: UserInfo; path: string }>(this, PATH_CHECK);
      return decide({
        user: p.user,
        verb,
        resourceRequest: false,
        path: p.path,
        apiGroup: "",
        namespace: "",
        resource: "",
        subresource: "",
        name: "",
      });
    }
    const r = read<ResourceCheck>(this, RESOURCE_CHECK);
    return decide({
      user: r.user,
      verb,
      resourceRequest: true,
      path: "",
      apiGroup: r.group,
      namespace: r.namespace,
      resource: r.resource,
      subresource: r.subresource,
      name: r.name,
    });
  }),
  celMethod("allowed", TAGGED, [], CelScalar.BOOL, function (this: CelMap) {
    return read<{ allowed: boolean }>(this, DECISION).allowed;
  }),
  celMethod("reason", TAGGED, [], STRING, function (this: CelMap) {
    return read<{ reason: string }>(this, DECISION).reason;
  }),
  celMethod("errored", TAGGED, [], CelScalar.BOOL, function (this: CelMap) {
    return read<{ error: string }>(this, DECISION).error !== "";
  }),
  celMethod("error", TAGGED, [], STRING, function (this: CelMap) {
    return read<{ error: string }>(this, DECISION).error;
  }),
];
