// A write's options are checked as a whole, as kube-apiserver 1.37 checks them: one 422 on
// CreateOptions, UpdateOptions or PatchOptions naming each problem (a field manager past 128 bytes
// or with a character that does not print, a dryRun other than All, an unknown fieldValidation,
// force without apply), before the body is read.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Api, configMap, type Reply, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
let cms: string;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("wo");
  cms = `/api/v1/namespaces/${ns}/configmaps`;
  assert.equal((await api.post(cms, configMap("c"))).status, 201);
});
after(async () => {
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

function refused(r: Reply, kind: string, problems: string[], causes: [string, string][]) {
  assert.equal(r.status, 422, r.text);
  const list = problems.length === 1 ? problems[0] : `[${problems.join(", ")}]`;
  assert.equal(r.body.message, `${kind}.meta.k8s.io "" is invalid: ${list}`);
  assert.equal(r.body.details.kind, kind);
  assert.deepEqual(
    r.body.details.causes.map((c: { reason: string; field: string }) => [c.reason, c.field]),
    causes,
  );
}

const TOO_LONG = "fieldManager: Too long: may not be more than 128 bytes";
const DRY_RUN = 'dryRun: Unsupported value: ["Bogus"]: supported values: "All"';
const FIELD_VALIDATION =
  'fieldValidation: Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"';
const ALL: [string, string][] = [
  ["FieldValueTooLong", "fieldManager"],
  ["FieldValueNotSupported", "dryRun"],
  ["FieldValueNotSupported", "fieldValidation"],
];

test("create, update and patch name every problem of their options at once", async () => {
  const q = `fieldManager=${"m".repeat(129)}&dryRun=Bogus&fieldValidation=Bogus`;
  const body = JSON.stringify(configMap("n"));
  refused(
    await api.call("POST", `${cms}?${q}`, body, { contentType: "application/json" }),
    "CreateOptions",
    [TOO_LONG, DRY_RUN, FIELD_VALIDATION],
    ALL,
  );
  const current = JSON.stringify((await api.get(`${cms}/c`)).body);
  refused(
    await api.call("PUT", `${cms}/c?${q}`, current, { contentType: "application/json" }),
    "UpdateOptions",
    [TOO_LONG, DRY_RUN, FIELD_VALIDATION],
    ALL,
  );
  refused(
    await api.call("PATCH", `${cms}/c?${q}`, '{"data":{"x":"1"}}', {
      contentType: "application/merge-patch+json",
    }),
    "PatchOptions",
    [TOO_LONG, DRY_RUN, FIELD_VALIDATION],
    ALL,
  );
});

test("a field manager's characters must print; its position is in bytes", async () => {
  const r = await api.call(
    "POST",
    `${cms}?fieldManager=${encodeURIComponent("é\tx")}`,
    JSON.stringify(configMap("t")),
    {
      contentType: "application/json",
    },
  );
  refused(
    r,
    "CreateOptions",
    ['fieldManager: Invalid value: "é\\tx": invalid character U+0009 (at position 2)'],
    [["FieldValueInvalid", "fieldManager"]],
  );
  // A name of 128 bytes, and an empty fieldValidation (the default), are fine.
  const ok = await api.call(
    "POST",
    `${cms}?fieldManager=${"m".repeat(128)}&fieldValidation=`,
    JSON.stringify(configMap("ok")),
    {
      contentType: "application/json",
    },
  );
  assert.equal(ok.status, 201, ok.text);
});

test("a patch: force only with apply, and apply needs a field manager", async () => {
  refused(
    await api.call("PATCH", `${cms}/c?force=true&dryRun=all`, '{"data":{"x":"1"}}', {
      contentType: "application/merge-patch+json",
    }),
    "PatchOptions",
    [
      "force: Forbidden: may not be specified for non-apply patch",
      'dryRun: Unsupported value: ["all"]: supported values: "All"',
    ],
    [
      ["FieldValueForbidden", "force"],
      ["FieldValueNotSupported", "dryRun"],
    ],
  );
  refused(
    await api.call("PATCH", `${cms}/c`, JSON.stringify(configMap("c")), {
      contentType: "application/apply-patch+yaml",
    }),
    "PatchOptions",
    ["fieldManager: Required value: is required for apply patch"],
    [["FieldValueRequired", "fieldManager"]],
  );
});
