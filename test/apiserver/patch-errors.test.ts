// What kube-apiserver 1.37 answers patches it cannot apply, per patch type and fieldValidation:
// a body that is not JSON is "invalid JSON patch"; under Warn (the default) and Strict the patch
// itself is decoded strictly first (a merge patch into a map, a JSON patch into its operations);
// a strategic patch's result goes through the unstructured converter, whose refusals are a 422 on
// `patch` quoting the patch as Go prints a map; a JSON or merge patch's 422 quotes the patched
// object as evanphx/json-patch writes it (what it parsed re-encoded with sorted keys, the rest as
// stored). An apply configuration of the wrong shape is SMD's 500.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Api, configMap, type Reply, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("pe");
  assert.equal((await api.post(cms(), configMap("c", { x: "1" }))).status, 201);
  const pod = {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p" },
    spec: { containers: [{ name: "c", image: "x" }] },
  };
  assert.equal((await api.post(`/api/v1/namespaces/${ns}/pods`, pod)).status, 201);
});
after(async () => {
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

const cms = () => `/api/v1/namespaces/${ns}/configmaps`;
const pod = () => `/api/v1/namespaces/${ns}/pods/p`;
const M = "application/merge-patch+json";
const J = "application/json-patch+json";
const S = "application/strategic-merge-patch+json";
const A = "application/apply-patch+yaml";
const send = (path: string, ct: string, body: string) => api.call("PATCH", path, body, { contentType: ct });

function refused(r: Reply, code: number, reason: string | undefined, message: string) {
  assert.equal(r.status, code, r.text);
  assert.equal(r.body.reason, reason, r.text);
  assert.equal(r.body.message, message);
}

/** A 422 on `patch`: its value, and the detail after it. */
function onPatch(r: Reply, value: string, detail: string) {
  const message = `Invalid value: ${JSON.stringify(value)}: ${detail}`;
  refused(r, 422, "Invalid", ` "" is invalid: patch: ${message}`);
  assert.deepEqual(r.body.details, { causes: [{ reason: "FieldValueInvalid", message, field: "patch" }] });
}

describe("bodies that are not patches", () => {
  test("a body that is not JSON is 'invalid JSON patch', whatever the patch type", async () => {
    for (const [ct, body] of [
      [M, "{"],
      [J, "["],
      [S, '{"a":}'],
    ]) {
      refused(await send(`${cms()}/c`, ct, body), 400, "BadRequest", "invalid JSON patch");
    }
  });

  test("a merge patch that is not a map: decoded strictly, then evanphx's answers", async () => {
    for (const [body, type] of [
      ["[1]", "array"],
      ['"x"', "string"],
      ["5", "number"],
    ]) {
      refused(
        await send(`${cms()}/c`, M, body),
        400,
        "BadRequest",
        `error decoding patch: json: cannot unmarshal ${type} into Go value of type map[string]interface {}`,
      );
    }
    refused(await send(`${cms()}/c`, M, "null"), 400, "BadRequest", "Invalid JSON Patch");
    refused(
      await send(`${cms()}/c?fieldValidation=Ignore`, M, '"x"'),
      400,
      "BadRequest",
      "Invalid JSON Patch",
    );
    // Unchecked, a list replaces the whole document, which then has no kind.
    onPatch(
      await send(`${cms()}/c?fieldValidation=Ignore`, M, "[1]"),
      "[1]",
      'couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }',
    );
  });

  test("a JSON patch decoded into kube's operations, then into evanphx's", async () => {
    const path = `${cms()}/c`;
    refused(
      await send(path, J, '{"op":"add"}'),
      400,
      "BadRequest",
      "error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp",
    );
    refused(
      await send(path, J, '[{"op":5,"path":"/a"}]'),
      400,
      "BadRequest",
      "error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string",
    );
    refused(
      await send(`${path}?fieldValidation=Ignore`, J, "[1]"),
      400,
      "BadRequest",
      "json: cannot unmarshal number into Go value of type jsonpatch.Operation",
    );
    assert.equal((await send(path, J, "null")).status, 200);
    // An operation's unknown or repeated fields: warned about, or under Strict a 422.
    const extra = await send(
      path,
      J,
      '[{"op":"add","path":"/data/y","value":"2","extra":1,"path":"/data/y"}]',
    );
    assert.equal(extra.status, 200, extra.text);
    assert.deepEqual(extra.headers.get("warning")?.split(", "), [
      '299 - "json patch unknown field \\"[0].extra\\""',
      '299 - "json patch duplicate field \\"[0].path\\""',
    ]);
    // An operation that cannot be applied: NewGenericServerResponse's 422, details empty.
    const failed = await send(path, J, '[{"op":"frob","path":"/data/y"}]');
    refused(failed, 422, "Invalid", "the server rejected our request due to an error in our request");
    assert.deepEqual(failed.body.details, {});
  });

  test("a JSON patch's replace of a missing member sets it (evanphx/json-patch v4); of a missing element, a 422", async () => {
    const set = await send(pod(), J, '[{"op":"replace","path":"/metadata/annotations","value":{"a":"1"}}]');
    assert.equal(set.status, 200, set.text);
    assert.deepEqual(set.body.metadata.annotations, { a: "1" });
    const missing = await send(pod(), J, '[{"op":"replace","path":"/spec/containers/5","value":{}}]');
    refused(missing, 422, "Invalid", "the server rejected our request due to an error in our request");
  });
});

describe("strict decoding of a patch's result", () => {
  test("under Strict, the 422 quotes the patched object as evanphx writes it", async () => {
    const stored = (await api.get(`${cms()}/c`)).body;
    const r = await send(`${cms()}/c?fieldValidation=Strict`, J, '[{"op":"add","path":"/foo","value":1}]');
    const m = /^ "" is invalid: patch: Invalid value: ("(?:[^"\\]|\\.)*"): (.*)$/.exec(r.body.message);
    assert.ok(m, r.text);
    assert.equal(m[2], 'strict decoding error: unknown field "foo"');
    // The top level, which the patch went through, re-encoded sorted; metadata as stored.
    const { metadata, ...rest } = stored;
    const sorted = Object.fromEntries(
      Object.entries({ ...rest, foo: 1, metadata }).sort(([a], [b]) => (a < b ? -1 : 1)),
    );
    assert.equal(JSON.parse(m[1]), JSON.stringify(sorted));
  });

  test("a merge patch's duplicate field is a strict problem; under Warn a warning", async () => {
    const warned = await send(`${cms()}/c`, M, '{"data":{"a":"1","a":"2"}}');
    assert.equal(warned.status, 200, warned.text);
    assert.equal(warned.headers.get("warning"), '299 - "duplicate field \\"data.a\\""');
    assert.equal(warned.body.data.a, "2");
  });
});

describe("a strategic merge patch whose result does not convert", () => {
  const cases: [string, string, string, string][] = [
    [
      "annotations of objects",
      `{"metadata":{"annotations":{"a":{"b":"c"}}}}`,
      "map[metadata:map[annotations:map[a:map[b:c]]]]",
      "unrecognized type: string",
    ],
    [
      "labels a number",
      `{"metadata":{"labels":5}}`,
      "map[metadata:map[labels:5]]",
      "cannot restore map from int64",
    ],
    ["data a list", `{"data":["a"]}`, "map[data:[a]]", "cannot restore map from slice"],
    ["immutable a string", `{"immutable":"yes"}`, "map[immutable:yes]", "unrecognized type: bool"],
    [
      "creationTimestamp a number",
      `{"metadata":{"creationTimestamp":5}}`,
      "map[metadata:map[creationTimestamp:5]]",
      "json: cannot unmarshal number into Go value of type string",
    ],
  ];
  for (const [what, body, value, detail] of cases) {
    test(`${what}: 422 on patch, the patch as Go prints it`, async () => {
      onPatch(await send(`${cms()}/c`, S, body), value, detail);
    });
  }

  test("a Pod's fields of the wrong type, in the converter's words", async () => {
    const containers = (c: string) => `{"spec":{"containers":[{"name":"c",${c}}]}}`;
    const pcases: [string, string, string][] = [
      [
        containers('"image":5'),
        "map[spec:map[containers:[map[image:5 name:c]]]]",
        "cannot convert int64 to string",
      ],
      [
        containers('"image":true'),
        "map[spec:map[containers:[map[image:true name:c]]]]",
        "unrecognized type: string",
      ],
      [
        containers('"ports":[{"containerPort":"80"}]'),
        "map[spec:map[containers:[map[name:c ports:[map[containerPort:80]]]]]]",
        "unrecognized type: int32",
      ],
      [
        containers('"ports":[{"containerPort":80.5}]'),
        "map[spec:map[containers:[map[name:c ports:[map[containerPort:80.5]]]]]]",
        "cannot convert float64 to int32",
      ],
      [
        containers('"resources":{"limits":{"cpu":{"a":1}}}'),
        "map[spec:map[containers:[map[name:c resources:map[limits:map[cpu:map[a:1]]]]]]]",
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      ],
      [
        containers('"livenessProbe":{"httpGet":{"port":{"a":1}}}'),
        "map[spec:map[containers:[map[livenessProbe:map[httpGet:map[port:map[a:1]]] name:c]]]]",
        "json: cannot unmarshal object into Go value of type int32",
      ],
      ['{"spec":"x"}', "map[spec:x]", "cannot restore struct from: string"],
      [
        '{"spec":{"containers":{"a":1}}}',
        "map[spec:map[containers:map[a:1]]]",
        "cannot restore slice from map",
      ],
    ];
    for (const [body, value, detail] of pcases) {
      // Strict changes nothing: the converter's refusal comes first.
      for (const q of ["", "?fieldValidation=Strict"])
        onPatch(await send(`${pod()}${q}`, S, body), value, detail);
    }
  });

  test("null applies nothing; directives of the wrong type: kube's 500, or skipped", async () => {
    assert.equal((await send(`${cms()}/c`, S, "null")).status, 200);
    refused(
      await send(pod(), S, '{"spec":{"$setElementOrder/containers":"x"}}'),
      500,
      undefined,
      "expected a []interface {}, but received a string",
    );
    assert.equal(
      (await send(pod(), S, '{"metadata":{"$deleteFromPrimitiveList/finalizers":"x"}}')).status,
      200,
    );
    onPatch(
      await send(`${cms()}/c?fieldValidation=Strict`, S, '{"data":{"a":"1"},"data":{"b":"2"}}'),
      "map[data:map[b:2]]",
      'strict decoding error: duplicate field "data"',
    );
  });
});

describe("apply configurations of the wrong shape", () => {
  test("SMD's typed conversion refuses them: 500, failed to create typed patch object", async () => {
    const cases: [unknown, string][] = [
      [
        { metadata: { name: "c", annotations: { a: { b: "c" } } } },
        '.metadata.annotations.a: expected string, got &value.valueUnstructured{Value:map[string]interface {}{"b":"c"}}',
      ],
      [{ metadata: { name: "c" }, data: 5 }, ".data: expected map, got &{5}"],
      [{ metadata: { name: "c" }, immutable: "yes" }, ".immutable: expected boolean, got &{yes}"],
    ];
    for (const [config, why] of cases) {
      const r = await send(
        `${cms()}/c?fieldManager=m`,
        A,
        JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", ...(config as object) }),
      );
      refused(r, 500, undefined, `failed to create typed patch object (/c; /v1, Kind=ConfigMap): ${why}`);
    }
  });
});

describe("managedFields and generation", () => {
  test("an object left without managedFields gets none from later updates (skipNonApplied)", async () => {
    const path = `${cms()}`;
    assert.equal((await api.post(path, configMap("untracked", { a: "1" }))).status, 201);
    const emptied = await send(`${path}/untracked`, S, '{"data":{"$patch":"delete"}}');
    assert.equal(emptied.status, 200, emptied.text);
    assert.equal(emptied.body.metadata.managedFields, undefined);
    const again = await send(`${path}/untracked`, M, '{"data":{"b":"2"}}');
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body.data, { b: "2" });
    assert.equal(again.body.metadata.managedFields, undefined);
    // An apply starts tracking again.
    const applied = await send(
      `${path}/untracked?fieldManager=m`,
      A,
      JSON.stringify({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "untracked" },
        data: { c: "3" },
      }),
    );
    assert.equal(applied.status, 200, applied.text);
    assert.ok(applied.body.metadata.managedFields.some((e: { manager: string }) => e.manager === "m"));
  });

  test("a Pod's generation counts its spec's changes", async () => {
    const created = await api.get(pod());
    assert.equal(created.body.metadata.generation, 1);
    const relabeled = await send(pod(), M, '{"metadata":{"labels":{"a":"b"}}}');
    assert.equal(relabeled.body.metadata.generation, 1);
    const changed = await send(pod(), M, '{"spec":{"activeDeadlineSeconds":100}}');
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.body.metadata.generation, 2);
  });
});
