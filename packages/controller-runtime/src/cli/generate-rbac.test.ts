// RBAC markers read as controller-gen reads them: the core group, merged verbs, rules merged by
// group, verbs and names, a Role per namespace, non-resource URLs, and errors that name the line.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parse } from "yaml";
import { CLIError } from "./errors.js";
import { parseMarker, roleManifest, rulesOf } from "./generate-rbac.js";

const m = (text: string, at = "x.ts:1") => parseMarker(text, at);

test("markers merge into sorted rules; core is the empty group", () => {
  const rules = rulesOf([
    m("groups=apps,resources=deployments,verbs=get;list"),
    m("groups=apps,resources=deployments,verbs=watch;get"),
    m("groups=apps,resources=statefulsets,verbs=get;list;watch"),
    m("groups=core,resources=configmaps;secrets,verbs=get"),
    m('groups="",resources=events,verbs=create;patch'),
    m("groups=core,resources=secrets,resourceNames=tls,verbs=update"),
    m("urls=/metrics;/healthz,verbs=get"),
  ]);
  assert.deepEqual(rules, [
    { apiGroups: [""], resources: ["configmaps", "secrets"], verbs: ["get"] },
    { apiGroups: [""], resources: ["events"], verbs: ["create", "patch"] },
    { apiGroups: [""], resources: ["secrets"], resourceNames: ["tls"], verbs: ["update"] },
    { apiGroups: ["apps"], resources: ["deployments", "statefulsets"], verbs: ["get", "list", "watch"] },
    { nonResourceURLs: ["/healthz", "/metrics"], verbs: ["get"] },
  ]);
});

test("a namespace= marker goes into a Role of that namespace", () => {
  const docs = roleManifest(
    [
      m("groups=apps,resources=deployments,verbs=get"),
      m("groups=,resources=pods,verbs=list,namespace=team-a"),
    ],
    "manager-role",
    "src",
  )
    .split(/^---$/m)
    .slice(1)
    .map((d) => parse(d));
  assert.deepEqual(
    docs.map((d) => [d.kind, d.metadata.namespace ?? "", d.rules.length]),
    [
      ["ClusterRole", "", 1],
      ["Role", "team-a", 1],
    ],
  );
});

test("a marker that cannot be read is an error naming file and line", () => {
  for (const [text, message] of [
    ["groups=apps,resources=deployments", /x\.ts:7: an rbac marker needs verbs=/],
    ["groups=apps,verbs=get", /x\.ts:7: an rbac marker needs resources=/],
    [
      "groups=apps,resource=deployments,verbs=get",
      /x\.ts:7: cannot read the rbac marker's "resource=deployments"/,
    ],
  ] as const) {
    assert.throws(
      () => m(text, "x.ts:7"),
      (err) => err instanceof CLIError && message.test(err.message),
    );
  }
});
