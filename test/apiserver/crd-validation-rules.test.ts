// A CRD's CEL validation rules (x-kubernetes-validations), as kube-apiserver evaluates them: at
// the schema's root, on nested objects, on each list item; transition rules on update only;
// messages, and the rule itself when there is none; rules that do not compile refused with the CRD.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { knownDifference, versionDifference } from "../support/environment.js";
import { Api, CRDS, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
const group = `rules${Date.now().toString(36)}.example.com`;
const path = `/apis/${group}/v1/namespaces/default/gizmos`;

const crd = (plural: string, kind: string, openAPIV3Schema: object) => ({
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `${plural}.${group}` },
  spec: {
    group,
    scope: "Namespaced",
    names: { plural, singular: plural.slice(0, -1), kind, listKind: `${kind}List` },
    versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema } }],
  },
});

const gizmoSchema = {
  type: "object",
  "x-kubernetes-validations": [
    { rule: "self.metadata.name.startsWith('g')", message: "name must start with g" },
  ],
  properties: {
    spec: {
      type: "object",
      "x-kubernetes-validations": [
        { rule: "self.min <= self.max", message: "min must not exceed max" },
        { rule: "self.max >= oldSelf.max", message: "max may only grow" },
      ],
      properties: {
        min: { type: "integer" },
        max: { type: "integer" },
        mode: { type: "string", "x-kubernetes-validations": [{ rule: "self in ['on', 'off']" }] },
        tags: {
          type: "array",
          items: { type: "string", "x-kubernetes-validations": [{ rule: "self.size() <= 3" }] },
        },
      },
    },
  },
};

/** Creates a CRD of `plural` in the test's group and waits until it is served; its collection's path. */
async function install(plural: string, kind: string, schema: object): Promise<string> {
  const created = await api.post(CRDS, crd(plural, kind, schema));
  assert.equal(created.status, 201, created.text);
  const collection = `/apis/${group}/v1/namespaces/default/${plural}`;
  await eventually("the CRD served", async () => (await api.get(collection)).status === 200, {
    timeoutMs: 30_000,
  });
  return collection;
}

before(async () => {
  target = await startTarget();
  api = new Api(target);
  await install("gizmos", "Gizmo", gizmoSchema);
});
after(async () => {
  await api.delete(`${CRDS}/gizmos.${group}`);
  await target.close();
});

const gizmo = (name: string, spec: object) => ({
  apiVersion: `${group}/v1`,
  kind: "Gizmo",
  metadata: { name },
  spec,
});
const causes = (r: { body: { details?: { causes?: object[] } } }) => r.body.details?.causes;

/** A schema whose `spec` has `rules` and `properties`. */
const specRules = (rules: object[], properties: object) => ({
  type: "object",
  properties: { spec: { type: "object", "x-kubernetes-validations": rules, properties } },
});

/** Creates objects of `kind` in `collection`: the messages of the causes refusing one, [] when created. */
const failuresOf = (collection: string, kind: string) => async (name: string, spec: object) => {
  const r = await api.post(collection, { apiVersion: `${group}/v1`, kind, metadata: { name }, spec });
  return r.status === 201 ? [] : (causes(r) as { message: string }[]).map((c) => c.message);
};

/**
 * A rule's message on an object node: one that failed prints no value (kube 1.37), one that could
 * not be evaluated prints the node's type.
 */
const said = (m: string) =>
  / evaluating rule: |no further validation rules will be run/.test(m)
    ? `Invalid value: "object": ${m}`
    : `Invalid value: ${m}`;

describe("CRD validation rules", () => {
  test("objects that keep the rules are stored; broken rules are 422s worded as kube's", async () => {
    assert.equal(
      (await api.post(path, gizmo("g-ok", { min: 1, max: 5, mode: "on", tags: ["a"] }))).status,
      201,
    );

    const order = await api.post(path, gizmo("g-order", { min: 6, max: 5 }));
    assert.equal(order.status, 422);
    assert.equal(
      order.body.message,
      `Gizmo.${group} "g-order" is invalid: spec: Invalid value: min must not exceed max`,
    );

    const two = await api.post(path, gizmo("x-two", { min: 1, max: 5, mode: "maybe" }));
    assert.deepEqual(causes(two), [
      {
        reason: "FieldValueInvalid",
        message: "Invalid value: name must start with g",
        field: "<nil>",
      },
      {
        reason: "FieldValueInvalid",
        message: "Invalid value: \"maybe\": failed rule: self in ['on', 'off']",
        field: "spec.mode",
      },
    ]);

    const item = await api.post(path, gizmo("g-item", { min: 1, max: 5, tags: ["ab", "abcd"] }));
    assert.deepEqual(causes(item), [
      {
        reason: "FieldValueInvalid",
        message: 'Invalid value: "abcd": failed rule: self.size() <= 3',
        field: "spec.tags[1]",
      },
    ]);
  });

  test("a transition rule runs on update only, against the old object", async () => {
    const created = await api.post(path, gizmo("g-grow", { min: 1, max: 5 }));
    assert.equal(created.status, 201, "no oldSelf on create: the transition rule does not run");
    const shrink = await api.put(`${path}/g-grow`, { ...created.body, spec: { min: 1, max: 2 } });
    assert.equal(shrink.status, 422);
    assert.deepEqual(causes(shrink), [
      { reason: "FieldValueInvalid", message: "Invalid value: max may only grow", field: "spec" },
    ]);
    assert.equal(
      (await api.put(`${path}/g-grow`, { ...created.body, spec: { min: 1, max: 9 } })).status,
      200,
    );
  });

  test("a rule that does not compile, or names a field the schema lacks, refuses the CRD", async () => {
    const r = await api.post(
      CRDS,
      crd("badrules", "BadRule", {
        type: "object",
        properties: {
          spec: {
            type: "object",
            "x-kubernetes-validations": [{ rule: "self.x +" }, { rule: "self.nope == 1" }],
            properties: { x: { type: "integer" } },
          },
        },
      }),
    );
    assert.equal(r.status, 422);
    const fields = causes(r) as { field: string; reason: string; message: string }[];
    const at = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations";
    assert.deepEqual(
      fields.map((c) => [c.reason, c.field]),
      [
        ["FieldValueInvalid", `${at}[0].rule`],
        ["FieldValueInvalid", `${at}[1].rule`],
      ],
    );
    const printed = versionDifference(
      "kube 1.26 prints a ValidationRule with Go's %#v, its Rule and Message only (1.37: as JSON, every field)",
    )
      ? '{"Rule":"self.x +","Message":"","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}'
      : 'apiextensions.ValidationRule{Rule:"self.x +", Message:""}';
    assert.ok(
      fields[0].message.startsWith(`Invalid value: ${printed}: compilation failed: ERROR: `),
      fields[0].message,
    );
    assert.ok(
      fields[1].message.endsWith(
        "compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope == 1\n | ....^",
      ),
      fields[1].message,
    );
  });

  test("a rule naming a function or variable nothing declares refuses the CRD, at the name", async () => {
    const rules = [
      "self.all(h, !bogus(h))",
      "self.exists(h, h.nope())",
      "self.size() < limit",
      "sets.nope(self, self)",
    ];
    const r = await api.post(
      CRDS,
      crd(
        "undeclared",
        "Undeclared",
        specRules([], {
          hosts: {
            type: "array",
            items: { type: "string" },
            "x-kubernetes-validations": rules.map((rule) => ({ rule })),
          },
        }),
      ),
    );
    assert.equal(r.status, 422, r.text);
    const messages = (causes(r) as { message: string }[]).map((c) =>
      c.message.slice(c.message.indexOf("compilation failed")),
    );
    const undeclared = (name: string, column: number, rule: string) =>
      `ERROR: <input>:1:${column}: undeclared reference to '${name}' (in container '')\n | ${rule}\n | ${".".repeat(column - 1)}^`;
    assert.equal(messages[0], `compilation failed: ${undeclared("bogus", 19, rules[0]!)}`);
    assert.equal(messages[2], `compilation failed: ${undeclared("limit", 15, rules[2]!)}`);
    // cel-go's checker goes on and reports what follows from it too (an overload, the namespace).
    assert.ok(messages[1]?.includes(undeclared("nope", 22, rules[1]!)), messages[1]);
    assert.ok(messages[3]?.includes(undeclared("nope", 10, rules[3]!)), messages[3]);
  });

  test("properties named as CEL cannot are read by kube's escaped names", async () => {
    const props = {
      namespace: { type: "string" },
      "x-y": { type: "string" },
      "a.b": { type: "string" },
      c__d: { type: "string" },
      "e/f": { type: "string" },
      labels: { type: "object", additionalProperties: { type: "string" } },
    };
    const collection = await install(
      "escapes",
      "Escape",
      specRules(
        [
          { rule: "!has(self.__namespace__) || self.__namespace__ != 'kube-system'", message: "namespace" },
          { rule: "!has(self.x__dash__y) || self.x__dash__y.size() < 3", message: "dash" },
          { rule: "!has(self.a__dot__b) || self.a__dot__b != 'no'", message: "dot" },
          { rule: "!has(self.c__underscores__d) || self.c__underscores__d != 'no'", message: "underscores" },
          { rule: "!has(self.e__slash__f) || self.e__slash__f != 'no'", message: "slash" },
          { rule: "!has(self.labels) || !('x-y' in self.labels)", message: "map keys are not escaped" },
        ],
        props,
      ),
    );
    const failures = failuresOf(collection, "Escape");
    assert.deepEqual(
      await failures("ok", { namespace: "a", "x-y": "ab", "a.b": "b", c__d: "c", "e/f": "d" }),
      [],
    );
    assert.deepEqual(
      await failures("bad", {
        namespace: "kube-system",
        "x-y": "abc",
        "a.b": "no",
        c__d: "no",
        "e/f": "no",
        labels: { "x-y": "1" },
      }),
      ["namespace", "dash", "dot", "underscores", "slash", "map keys are not escaped"].map(said),
    );
    // A reserved word is read by its plain name too (kube 1.31+); an unescaped name is no field at all.
    const refused = await api.post(
      CRDS,
      crd(
        "unescaped",
        "Unescaped",
        specRules([{ rule: "self.namespace != 'kube-system'" }, { rule: "has(self.x_y)" }], props),
      ),
    );
    assert.equal(refused.status, 422, refused.text);
    assert.deepEqual(
      (causes(refused) as { message: string }[]).map((c) =>
        c.message.slice(c.message.indexOf("compilation failed")),
      ),
      ["compilation failed: ERROR: <input>:1:4: undefined field 'x_y'\n | has(self.x_y)\n | ...^"],
    );
  });

  test("messageExpression, reason and fieldPath shape a failed rule's cause (kube 1.28+)", async () => {
    const collection = await install("widgets", "Widget", {
      type: "object",
      properties: {
        spec: {
          type: "object",
          "x-kubernetes-validations": [
            {
              rule: "self.replicas <= self.limits.max",
              message: "too many replicas",
              // Not 'replicas ' + string(self.replicas): kube sizes string()'s result as unbounded,
              // and refuses the concatenation as over budget (crd-rule-cost.test.ts).
              messageExpression: "'replicas %d exceed %d'.format([self.replicas, self.limits.max])",
              reason: "FieldValueForbidden",
              fieldPath: ".replicas",
            },
            {
              rule: "self.replicas != 7",
              messageExpression: "'ratio %d'.format([self.limits.max / (self.replicas - 7)])",
              fieldPath: ".limits['max']",
            },
            { rule: "self.replicas != 13", reason: "FieldValueDuplicate" },
          ],
          properties: {
            replicas: { type: "integer" },
            limits: { type: "object", properties: { max: { type: "integer" } } },
          },
        },
      },
    });
    const widget = (name: string, replicas: number, max = 5) => ({
      apiVersion: `${group}/v1`,
      kind: "Widget",
      metadata: { name },
      spec: { replicas, limits: { max } },
    });
    assert.equal((await api.post(collection, widget("ok", 3))).status, 201);
    const many = await api.post(collection, widget("many", 9));
    const seven = await api.post(collection, widget("seven", 7, 10));
    const thirteen = await api.post(collection, widget("thirteen", 13, 20));
    for (const r of [many, seven, thirteen]) assert.equal(r.status, 422);
    if (versionDifference("kube 1.26 drops messageExpression, reason and fieldPath from a CRD's rules")) {
      assert.deepEqual(causes(many), [
        { reason: "FieldValueForbidden", message: "Forbidden: replicas 9 exceed 5", field: "spec.replicas" },
      ]);
      // A messageExpression that fails to evaluate falls back to the message, else the rule.
      assert.deepEqual(causes(seven), [
        {
          reason: "FieldValueInvalid",
          message: "Invalid value: failed rule: self.replicas != 7",
          field: "spec.limits.max",
        },
      ]);
      assert.deepEqual(causes(thirteen), [
        { reason: "FieldValueDuplicate", message: "Duplicate value", field: "spec" },
      ]);
    } else {
      assert.deepEqual(causes(many), [
        { reason: "FieldValueInvalid", message: "Invalid value: too many replicas", field: "spec" },
      ]);
    }
    await api.delete(`${CRDS}/widgets.${group}`);
  });

  test("a rule's messageExpression, reason and fieldPath are checked with the CRD (kube 1.28+)", async (t) => {
    if (!versionDifference("kube 1.26 drops messageExpression, reason and fieldPath from a CRD's rules")) {
      t.skip("kube 1.26 knows none of these fields");
      return;
    }
    const r = await api.post(
      CRDS,
      crd("badfields", "BadField", {
        type: "object",
        properties: {
          spec: {
            type: "object",
            "x-kubernetes-validations": [
              { rule: "self.x > 0", messageExpression: "'x is ' +" },
              { rule: "self.x > 1", reason: "FieldValueWrong" },
              { rule: "self.x > 2", fieldPath: ".y" },
              { rule: "self.x > 3", fieldPath: "x" },
              { rule: "self.x > 4", optionalOldSelf: true },
              { rule: "self.x > 5", messageExpression: "  " },
            ],
            properties: { x: { type: "integer" } },
          },
        },
      }),
    );
    assert.equal(r.status, 422);
    const at = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations";
    const got = (causes(r) as { field: string; reason: string; message: string }[]).map((c) => [
      c.reason,
      c.field,
      c.message.replace(/ERROR: .*/s, "ERROR: …"),
    ]);
    // A node any of whose rules is refused for its other fields has none compiled (kube 1.37):
    // the messageExpression of [0] and the optionalOldSelf of [4] are not looked at.
    assert.deepEqual(got, [
      [
        "FieldValueNotSupported",
        `${at}[1].reason`,
        'Unsupported value: "FieldValueWrong": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"',
      ],
      ["FieldValueInvalid", `${at}[2].fieldPath`, 'Invalid value: ".y": must be a valid path'],
      ["FieldValueInvalid", `${at}[3].fieldPath`, 'Invalid value: "x": must be a valid path'],
      [
        "FieldValueRequired",
        `${at}[5].messageExpression`,
        "Required value: messageExpression must be non-empty if specified",
      ],
    ]);
  });

  test("an update leaving a now-invalid value as it was passes the rule (ratcheting, kube 1.30+)", async () => {
    const props = (rules: boolean) => ({
      size: { type: "integer", ...(rules ? { "x-kubernetes-validations": [{ rule: "self <= 10" }] } : {}) },
      label: { type: "string" },
      tags: {
        type: "array",
        items: {
          type: "string",
          ...(rules ? { "x-kubernetes-validations": [{ rule: "self.size() < 5" }] } : {}),
        },
      },
    });
    const collection = await install("ratchets", "Ratchet", {
      type: "object",
      properties: { spec: { type: "object", properties: props(false) } },
    });
    const created = await api.post(collection, {
      apiVersion: `${group}/v1`,
      kind: "Ratchet",
      metadata: { name: "old" },
      spec: { size: 100, label: "a", tags: ["toolong"] },
    });
    assert.equal(created.status, 201);
    // The CRD tightens: sizes up to 10, tags shorter than 5.
    const current = (await api.get(`${CRDS}/ratchets.${group}`)).body;
    current.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties = props(true);
    assert.equal((await api.put(`${CRDS}/ratchets.${group}`, current)).status, 200);
    const fresh = (name: string) => ({
      apiVersion: `${group}/v1`,
      kind: "Ratchet",
      metadata: { name },
      spec: { size: 100, label: "a", tags: ["toolong"] },
    });
    await eventually(
      "the new rules in force",
      async () => (await api.post(collection, fresh("new"))).status === 422,
      {
        timeoutMs: 30_000,
      },
    );
    const stored = (await api.get(`${collection}/old`)).body;
    const relabelled = await api.put(`${collection}/old`, {
      ...stored,
      spec: { ...stored.spec, label: "b" },
    });
    if (versionDifference("kube 1.26 does not ratchet: an unchanged invalid value still fails its rule")) {
      assert.equal(relabelled.status, 200, relabelled.text);
      const grown = await api.put(`${collection}/old`, {
        ...relabelled.body,
        spec: { ...relabelled.body.spec, size: 50 },
      });
      assert.equal(grown.status, 422, "a changed value meets the rule again");
      assert.deepEqual(
        (causes(grown) as { field: string }[]).map((c) => c.field),
        ["spec.size"],
        "the unchanged (atomic) tags list still passes",
      );
    } else {
      assert.equal(relabelled.status, 422);
    }
    await api.delete(`${CRDS}/ratchets.${group}`);
  });

  test("nested comprehensions over collections of no declared size are refused for their cost", async () => {
    const list = (extra: object) => ({
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            list: {
              type: "array",
              ...extra,
              "x-kubernetes-validations": [{ rule: "self.all(x, self.all(y, x == y || x != y))" }],
            },
          },
        },
      },
    });
    const unbounded = await api.post(CRDS, crd("costlies", "Costly", list({ items: { type: "string" } })));
    assert.equal(unbounded.status, 422);
    assert.deepEqual((causes(unbounded) as object[])[0], {
      reason: "FieldValueForbidden",
      message:
        "Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)",
      field:
        "spec.validation.openAPIV3Schema.properties[spec].properties[list].x-kubernetes-validations[0].rule",
    });
    const bounded = await api.post(
      CRDS,
      crd("cheaps", "Cheap", list({ maxItems: 10, items: { type: "string", maxLength: 10 } })),
    );
    assert.equal(bounded.status, 201, bounded.text);
    await api.delete(`${CRDS}/cheaps.${group}`);
    // Gateway API's listener rule: bounded ranges, whatever else the items hold.
    const listeners = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          properties: {
            listeners: {
              type: "array",
              maxItems: 64,
              items: {
                type: "object",
                properties: {
                  name: { type: "string", maxLength: 253 },
                  tags: { type: "array", items: { type: "string" } },
                },
              },
              "x-kubernetes-validations": [{ rule: "self.all(l1, self.exists_one(l2, l1.name == l2.name))" }],
            },
          },
        },
      },
    };
    const gateway = await api.post(CRDS, crd("portals", "Portal", listeners));
    assert.equal(gateway.status, 201, gateway.text);
    await api.delete(`${CRDS}/portals.${group}`);
  });

  test("kube's cost estimate: a rule too dear on the largest object a request can carry refuses the CRD", async () => {
    const rule = (r: string) => ({ "x-kubernetes-validations": [{ rule: r }] });
    const text = { type: "string" };
    const shapes: Record<string, object> = {
      stringMatches: { s: { ...text, ...rule("self.matches('^[a-z]+$')") } },
      itemMatches: { l: { type: "array", items: { ...text, ...rule("self.matches('^[a-z]+$')") } } },
      itemSize: { l: { type: "array", items: { ...text, ...rule("self.size() < 10") } } },
      nestedItemSize: {
        l: { type: "array", items: { type: "array", items: { ...text, ...rule("self.size() < 10") } } },
      },
      allSize: { l: { type: "array", items: text, ...rule("self.all(x, x.size() < 10)") } },
      allContains: { l: { type: "array", items: text, ...rule("self.all(x, x.contains('a'))") } },
      mapValues: {
        m: { type: "object", additionalProperties: text, ...rule("self.all(k, self[k].startsWith('a'))") },
      },
      bounded: {
        l: {
          type: "array",
          maxItems: 100,
          items: { ...text, maxLength: 64, ...rule("self.matches('^[a-z]+$')") },
        },
      },
      itemFields: {
        l: {
          type: "array",
          items: { type: "object", properties: { a: text, b: text }, ...rule("self.a.startsWith(self.b)") },
        },
      },
      split: { s: { ...text, ...rule("self.split(',').all(x, x.size() < 5)") } },
      itemList: {
        l: {
          type: "array",
          items: {
            type: "object",
            properties: { m: { type: "array", items: text } },
            ...rule("self.m.all(x, x.size() < 9)"),
          },
        },
      },
    };
    const root = "spec.validation.openAPIV3Schema";
    const advice =
      "(try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)";
    const refusals: Record<string, string> = {};
    for (const [name, properties] of Object.entries(shapes)) {
      const plural = `${name.toLowerCase()}costs`;
      const r = await api.post(
        CRDS,
        crd(plural, `${name}Cost`, { type: "object", properties: { spec: { type: "object", properties } } }),
      );
      if (r.status === 201) {
        await api.delete(`${CRDS}/${plural}.${group}`);
        continue;
      }
      assert.equal(r.status, 422, r.text);
      const [first, ...rest] = causes(r) as { field: string; message: string }[];
      refusals[name] = first!.field.slice(root.length);
      assert.ok(
        first!.message.startsWith("Forbidden: estimated rule cost exceeds budget by factor of "),
        first!.message,
      );
      if (name === "split") continue; // kube 1.26 prices split() by an unknown size; later ones by the string's
      assert.equal(
        first!.message,
        `Forbidden: estimated rule cost exceeds budget by factor of more than 100x ${advice}`,
      );
      assert.deepEqual(rest, [
        {
          reason: "FieldValueForbidden",
          message:
            "Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
          field: first!.field,
        },
        {
          reason: "FieldValueForbidden",
          message: `Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x ${advice}`,
          field: root,
        },
      ]);
    }
    assert.deepEqual(refusals, {
      itemMatches: ".properties[spec].properties[l].items.x-kubernetes-validations[0].rule",
      allContains: ".properties[spec].properties[l].x-kubernetes-validations[0].rule",
      itemFields: ".properties[spec].properties[l].items.x-kubernetes-validations[0].rule",
      split: ".properties[spec].properties[s].x-kubernetes-validations[0].rule",
      itemList: ".properties[spec].properties[l].items.x-kubernetes-validations[0].rule",
    });
  });

  test("Kubernetes' list and regex libraries: isSorted, sum, min, max, indexOf, find, findAll", async () => {
    const schema = specRules(
      [
        { rule: "self.nums.isSorted()", message: "sorted" },
        { rule: "self.nums.sum() <= 10", message: "sum" },
        { rule: "self.nums.min() >= 0", message: "min" },
        { rule: "self.nums.max() < 9", message: "max" },
        { rule: "self.nums.indexOf(5) != 0", message: "indexOf" },
        { rule: "self.name.find('[0-9]+') != '13'", message: "find" },
        { rule: "self.name.findAll('[a-z]').size() <= 3", message: "findAll" },
      ],
      {
        nums: { type: "array", maxItems: 10, items: { type: "integer" } },
        name: { type: "string", maxLength: 20 },
      },
    );
    const failed = failuresOf(await install("libs", "Lib", schema), "Lib");
    assert.deepEqual(await failed("ok", { nums: [1, 2, 3], name: "ab1" }), []);
    assert.deepEqual(await failed("unsorted", { nums: [3, 1], name: "x" }), [said("sorted")]);
    assert.deepEqual(await failed("big", { nums: [5, 6], name: "x" }), [said("sum"), said("indexOf")]);
    assert.deepEqual(await failed("empty", { nums: [], name: "x" }), [
      said("min called on empty list evaluating rule: min"),
      said("max called on empty list evaluating rule: max"),
    ]);
    assert.deepEqual(await failed("thirteen", { nums: [1], name: "a13b" }), [said("find")]);
    assert.deepEqual(await failed("letters", { nums: [1], name: "abcd" }), [said("findAll")]);
    await api.delete(`${CRDS}/libs.${group}`);
  });

  test("includes (Kubernetes' list library, version 1) is not yet in kube 1.37's CRD rules", async () => {
    // kube compiles new rules at its compatibility version, one minor behind: version 1 of the
    // list library arrived in kube 1.37's environment, so its rules may name it from kube 1.38.
    const r = await api.post(CRDS, crd("includes", "Include", specRules([{ rule: "![7].includes(7)" }], {})));
    assert.equal(r.status, 422, r.text);
    assert.match(
      (causes(r) as { message: string }[])[0]?.message ?? "",
      /compilation failed: ERROR: <input>:1:14: undeclared reference to 'includes' \(in container ''\)/,
    );
  });

  test("cel-go's sets extension: sets.contains, sets.equivalent, sets.intersects (kube 1.29+)", async (t) => {
    if (!versionDifference("kube 1.26 has no sets library in CRD rules")) {
      t.skip("kube 1.26 offers no sets.* functions");
      return;
    }
    const list = { type: "array", maxItems: 10, items: { type: "integer" } };
    const schema = specRules(
      [
        { rule: "sets.contains(self.allowed, self.used)", message: "contains" },
        { rule: "!sets.intersects(self.used, self.banned)", message: "intersects" },
        { rule: "sets.equivalent(self.used, self.mirror)", message: "equivalent" },
        // A literal may not mix types (kube refuses [1.0, 2u]); dyn() values compare across them.
        { rule: "sets.contains([1.0, 2.0], [dyn(1), dyn(2u)])", message: "numbers across types" },
      ],
      { allowed: list, used: list, banned: list, mirror: list },
    );
    const failed = failuresOf(await install("picks", "Pick", schema), "Pick");
    const base = { allowed: [1, 2, 3], used: [2, 1, 2], banned: [7], mirror: [1, 2] };
    assert.deepEqual(await failed("ok", base), []);
    assert.deepEqual(await failed("extra", { ...base, used: [1, 4], mirror: [4, 1] }), [said("contains")]);
    assert.deepEqual(await failed("banned", { ...base, banned: [2] }), [said("intersects")]);
    assert.deepEqual(await failed("uneven", { ...base, mirror: [1, 2, 3] }), [said("equivalent")]);
    await api.delete(`${CRDS}/picks.${group}`);
  });

  test("Kubernetes' quantity library: quantity(), isQuantity(), comparisons, add, sub, conversions (kube 1.29+)", async (t) => {
    if (!versionDifference("kube 1.26 has no quantity library in CRD rules")) {
      t.skip("kube 1.26 offers no quantity() in CRD rules");
      return;
    }
    const text = { type: "string", maxLength: 40 };
    const schema = specRules(
      [
        { rule: "isQuantity(self.request) && isQuantity(self.limit)", message: "quantities" },
        {
          rule: "!isQuantity(self.request) || !isQuantity(self.limit) || !quantity(self.request).isGreaterThan(quantity(self.limit))",
          message: "request <= limit",
        },
        {
          rule: "!isQuantity(self.limit) || quantity(self.limit).compareTo(quantity('64Gi')) <= 0",
          message: "at most 64Gi",
        },
        { rule: "!isQuantity(self.limit) || sign(quantity(self.limit)) == 1", message: "positive" },
        {
          rule: "!has(self.cpus) || (quantity(self.cpus).isInteger() && quantity(self.cpus).asInteger() <= 64)",
          message: "whole cpus",
        },
        {
          // Not `!=`: kube prices == of quantities at 1 and != by their (unknown) size.
          rule: "!isQuantity(self.limit) || !(quantity(self.limit).sub(quantity(self.request)).add(1) == quantity('1'))",
          message: "headroom",
        },
      ],
      { request: text, limit: text, cpus: text },
    );
    const failed = failuresOf(await install("pods2s", "Pod2", schema), "Pod2");
    assert.deepEqual(await failed("ok", { request: "512Mi", limit: "1Gi", cpus: "2" }), []);
    assert.deepEqual(await failed("same-value", { request: "1Gi", limit: "1073741824.5" }), []);
    // A rule that parses a bad quantity fails to evaluate, in ParseQuantity's words.
    assert.deepEqual(await failed("bad", { request: "1,5G", limit: "1G" }), [
      said("quantities"),
      said(
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' evaluating rule: headroom",
      ),
    ]);
    assert.deepEqual(await failed("over", { request: "2G", limit: "1Gi" }), [said("request <= limit")]);
    assert.deepEqual(await failed("huge", { request: "1", limit: "65Gi" }), [said("at most 64Gi")]);
    assert.deepEqual(await failed("negative", { request: "-1", limit: "-1m" }), [said("positive")]);
    assert.deepEqual(await failed("cpus", { request: "1", limit: "2", cpus: "1500m" }), [said("whole cpus")]);
    assert.deepEqual(await failed("no-room", { request: "1k", limit: "1000" }), [said("headroom")]);
    await api.delete(`${CRDS}/pods2s.${group}`);
  });

  test("Kubernetes' semver library: semver(), isSemver(), normalization, ordering (kube 1.33+)", async (t) => {
    if (!versionDifference("kube before 1.33 has no semver library in CRD rules")) {
      t.skip("kube before 1.33 offers no semver() in CRD rules");
      return;
    }
    const text = { type: "string", maxLength: 40 };
    const schema = specRules(
      [
        { rule: "isSemver(self.version, true)", message: "semver" },
        {
          rule: "!isSemver(self.version, true) || semver(self.version, true).isGreaterThan(semver('1.0.0'))",
          message: "above 1.0.0",
        },
        { rule: "!isSemver(self.version) || semver(self.version).major() < 3", message: "major" },
        {
          rule: "!isSemver(self.version, true) || !(semver(self.version, true) == semver('2.0.0-rc.1+build'))",
          message: "not rc.1",
        },
        { rule: "!has(self.strict) || semver(self.strict).minor() >= 0", message: "strict" },
      ],
      { version: text, strict: text },
    );
    const failed = failuresOf(await install("releases", "Release", schema), "Release");
    assert.deepEqual(await failed("ok", { version: "v1.2" }), []);
    assert.deepEqual(await failed("old", { version: "0.9.0" }), [said("above 1.0.0")]);
    assert.deepEqual(await failed("bad", { version: "one" }), [said("semver")]);
    assert.deepEqual(await failed("big", { version: "3.0.0" }), [said("major")]);
    assert.deepEqual(await failed("rc", { version: "v2.0.0-rc.1" }), [said("not rc.1")]);
    assert.deepEqual(await failed("prerelease", { version: "2.0.0-rc.2" }), []);
    assert.deepEqual(await failed("zeroes", { version: "1.5.0", strict: "01.0.0" }), [
      said('Major number must not contain leading zeroes "01" evaluating rule: strict'),
    ]);
    await api.delete(`${CRDS}/releases.${group}`);
  });

  test("cel-go's two-variable comprehensions: all, exists, existsOne, transformList, transformMap (kube 1.32+)", async (t) => {
    if (!versionDifference("kube before 1.32 has no two-variable comprehensions")) {
      t.skip("kube before 1.32 reads no two-variable comprehensions");
      return;
    }
    const schema = specRules(
      [
        { rule: "self.m.all(k, v, v.startsWith(k))", message: "prefixed" },
        { rule: "self.l.all(i, v, i == 0 || v > self.l[i - 1])", message: "ascending" },
        { rule: "!self.l.exists(i, v, v < 0)", message: "no negatives" },
        { rule: "size(self.l) == 0 || self.l.existsOne(i, v, v == self.l[0])", message: "first once" },
        { rule: "size(self.m.transformList(k, v, v.size() > 3, k)) <= 1", message: "long values" },
        {
          rule: "size(self.l) == 0 || self.l.transformMap(i, v, v * 2)[0] == self.l[0] * 2",
          message: "double",
        },
        { rule: "self.m.transformMapEntry(k, v, {v: k}).size() == self.m.size()", message: "values unique" },
        // The inner comprehension's k is its own: the outer k is not read inside it.
        { rule: "self.m.all(k, v, self.l.all(k, w, k >= 0 && w >= 0))", message: "shadowed" },
      ],
      {
        m: { type: "object", maxProperties: 10, additionalProperties: { type: "string", maxLength: 10 } },
        l: { type: "array", maxItems: 10, items: { type: "integer" } },
      },
    );
    const failed = failuresOf(await install("pairs", "Pair", schema), "Pair");
    assert.deepEqual(await failed("ok", { m: { a: "ax", b: "bxyz" }, l: [1, 2, 3] }), []);
    assert.deepEqual(await failed("prefix", { m: { a: "x" }, l: [1] }), [said("prefixed")]);
    assert.deepEqual(await failed("order", { m: {}, l: [2, 2] }), [said("ascending"), said("first once")]);
    assert.deepEqual(await failed("negative", { m: {}, l: [-3, -1] }), [said("no negatives")]);
    assert.deepEqual(await failed("long", { m: { a: "abcd", b: "bcde" }, l: [] }), [said("long values")]);
    assert.deepEqual(await failed("same", { m: { a: "a1", a1: "a1" }, l: [] }), [
      said("insert failed: key a1 already exists evaluating rule: values unique"),
    ]);
    await api.delete(`${CRDS}/pairs.${group}`);
  });

  test("Kubernetes' IP and CIDR libraries: ip(), cidr(), their predicates and containment (kube 1.30+)", async (t) => {
    if (!versionDifference("kube 1.26 has no ip or cidr library in CRD rules")) {
      t.skip("kube 1.26 offers no ip() or cidr() in CRD rules");
      return;
    }
    const text = { type: "string", maxLength: 64 };
    const schema = specRules(
      [
        { rule: "isIP(self.address) && isCIDR(self.network)", message: "addresses" },
        { rule: "!isIP(self.address) || ip.isCanonical(self.address)", message: "canonical" },
        {
          rule: "!isIP(self.address) || !isCIDR(self.network) || cidr(self.network).containsIP(self.address)",
          message: "inside",
        },
        {
          rule: "!isCIDR(self.network) || cidr(self.network) == cidr(self.network).masked()",
          message: "masked",
        },
        { rule: "!isIP(self.address) || !ip(self.address).isLoopback()", message: "not loopback" },
        { rule: "!has(self.gateway) || ip(self.gateway).family() == 4", message: "IPv4 gateway" },
      ],
      { address: text, network: text, gateway: text },
    );
    const failed = failuresOf(await install("subnets", "Subnet", schema), "Subnet");
    assert.deepEqual(
      await failed("ok", { address: "10.1.2.3", network: "10.0.0.0/8", gateway: "10.0.0.1" }),
      [],
    );
    assert.deepEqual(await failed("v6", { address: "2001:db8::1", network: "2001:db8::/32" }), []);
    assert.deepEqual(await failed("outside", { address: "11.0.0.1", network: "10.0.0.0/8" }), [
      said("inside"),
    ]);
    assert.deepEqual(await failed("unmasked", { address: "10.0.0.1", network: "10.0.0.1/8" }), [
      said("masked"),
    ]);
    assert.deepEqual(await failed("upper", { address: "2001:DB8::1", network: "2001:db8::/32" }), [
      said("canonical"),
    ]);
    assert.deepEqual(await failed("loop", { address: "127.0.0.1", network: "127.0.0.0/8" }), [
      said("not loopback"),
    ]);
    // A rule that parses a bad address fails to evaluate, in the library's words.
    assert.deepEqual(
      await failed("bad", { address: "10.0.0.1", network: "10.0.0.0/8", gateway: "10.0.0.256" }),
      [
        said(
          'IP Address "10.0.0.256" parse error during conversion from string: ParseAddr("10.0.0.256"): IPv4 field has value >255 evaluating rule: IPv4 gateway',
        ),
      ],
    );
    await api.delete(`${CRDS}/subnets.${group}`);
  });

  test("Kubernetes' url library: url(), isURL() and the getters, on Go's ParseRequestURI", async () => {
    const getters = ["getScheme", "getHost", "getHostname", "getPort", "getEscapedPath"];
    const text = { type: "string", maxLength: 100 };
    const schema = {
      type: "object",
      properties: {
        spec: {
          type: "object",
          "x-kubernetes-validations": [
            ...getters.map((f) => ({ rule: `url(self.u).${f}() == self.${f}`, message: f })),
            { rule: "url(self.u).getQuery() == self.q", message: "getQuery" },
          ],
          properties: {
            u: text,
            ...Object.fromEntries(getters.map((f) => [f, text])),
            q: {
              type: "object",
              maxProperties: 5,
              additionalProperties: { type: "array", maxItems: 5, items: text },
            },
          },
        },
      },
    };
    const links = await install("links", "Link", schema);
    const link = (name: string, u: string, parts: string[], q: object = {}) => ({
      apiVersion: `${group}/v1`,
      kind: "Link",
      metadata: { name },
      spec: { u, ...Object.fromEntries(getters.map((f, i) => [f, parts[i]])), q },
    });
    // What kube-apiserver 1.26 answers for each (recorded by running these rules against it).
    const cases = [
      link(
        "full",
        "https://example.com:8443/a%20b/c?x=1&y=2&x=3",
        ["https", "example.com:8443", "example.com", "8443", "/a%20b/c"],
        {
          x: ["1", "3"],
          y: ["2"],
        },
      ),
      link("ipv6", "http://[::1]:80/p", ["http", "[::1]:80", "::1", "80", "/p"]),
      link("path", "/just/a/path", ["", "", "", "", "/just/a/path"]),
      link("opaque", "mailto:someone@example.com", ["mailto", "", "", "", ""]),
      link("space", "https://ex.com/a b", ["https", "ex.com", "ex.com", "", "/a%20b"]),
      link("case", "HTTP://x.y/p%7Eq", ["http", "x.y", "x.y", "", "/p%7Eq"]),
    ];
    for (const c of cases) {
      const r = await api.post(links, c);
      assert.equal(r.status, 201, `${c.spec.u}: ${r.text}`);
    }
    const bad = await api.post(links, link("bad", "http://h:port/", ["", "", "", "", ""]));
    assert.equal(
      (causes(bad) as { message: string }[])[0].message,
      'Invalid value: "object": URL parse error during conversion from string: parse "http://h:port/": invalid port ":port" after host evaluating rule: getScheme',
    );
    await api.delete(`${CRDS}/links.${group}`);
  });

  test("Kubernetes' format library and optional values (kube 1.31+)", async (t) => {
    if (!versionDifference("kube 1.26 has no format library nor optional values in CRD rules")) {
      t.skip("kube 1.26 offers no format.* nor optional.* in CRD rules");
      return;
    }
    const text = { type: "string", maxLength: 253 };
    const schema = specRules(
      [
        { rule: "!format.dns1123Label().validate(self.name).hasValue()", message: "label" },
        {
          rule: "!has(self.id) || !format.uuid().validate(self.id).hasValue()",
          // Not .join(', '): a list a function made has elements of no size kube knows, and
          // joining them is over budget (crd-rule-cost.test.ts).
          messageExpression: "format.uuid().validate(self.id).value()[0]",
        },
        {
          rule: "!has(self.kind) || format.named(self.kind).hasValue()",
          messageExpression: "'no format ' + self.kind",
        },
        {
          rule: "!has(self.kind) || !format.named(self.kind).hasValue() || !format.named(self.kind).value().validate(self.name).hasValue()",
          messageExpression: "format.named(self.kind).value().validate(self.name).value()[0]",
        },
        { rule: "optional.ofNonZeroValue(self.name).orValue('x') == self.name", message: "orValue" },
      ],
      { name: text, id: text, kind: text },
    );
    const failed = failuresOf(await install("formats", "Format", schema), "Format");
    assert.deepEqual(await failed("ok", { name: "ok-name", id: "123e4567-e89b-12d3-a456-426614174000" }), []);
    assert.deepEqual(await failed("uuid", { name: "ok", id: "nope" }), [
      said("does not match the UUID format"),
    ]);
    assert.deepEqual(await failed("named", { name: "ok", kind: "shoeSize" }), [said("no format shoeSize")]);
    assert.deepEqual(await failed("dns1035", { name: "1abc", kind: "dns1035Label" }), [
      said(
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ),
    ]);
    assert.deepEqual(await failed("label", { name: "Not_A_Label" }), [said("label")]);
  });

  test("a rule whose evaluation costs past 1 000 000 is cancelled, at the element kube stops at", async () => {
    // Per inner step cel-go counts 7 (the loop's condition 2, @result 1, x, y, + and >= 1 each),
    // per outer step 6 more, and 3 for the rule: 377 elements cost 997 168, 378 cost 1 002 459.
    const pairs = await install(
      "pairs",
      "Pair",
      specRules([{ rule: "self.l.all(x, self.l.all(y, x + y >= 0))", message: "pairs" }], {
        l: { type: "array", maxItems: 1000, items: { type: "integer" } },
      }),
    );
    const failed = failuresOf(pairs, "Pair");
    const numbers = (n: number) => ({ l: Array.from({ length: n }, (_, i) => i) });
    assert.deepEqual(await failed("under", numbers(377)), []);
    assert.deepEqual(await failed("over", numbers(378)), [
      said(
        "'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: pairs",
      ),
    ]);
  });

  test("the rules run on one object share a budget of 10 000 000; past it no rule runs", async () => {
    // Each rule costs 631 803 on 300 numbers (and is estimated so, 9.5M weighed by 15 items: each
    // under kube's 10M per rule). Fifteen evaluations spend 9 477 045; the sixteenth, item 5's
    // first rule, would pass the budget, and kube stops there.
    const rule = (predicate: string) => ({ rule: `self.l.all(x, self.l.all(y, ${predicate}))` });
    const sums = await install(
      "sums",
      "Sum",
      specRules([], {
        items: {
          type: "array",
          maxItems: 15,
          items: {
            type: "object",
            "x-kubernetes-validations": [rule("x + y >= 0"), rule("y + x >= 0"), rule("0 <= x + y")],
            properties: { l: { type: "array", maxItems: 300, items: { type: "integer" } } },
          },
        },
      }),
    );
    const item = { l: Array.from({ length: 300 }, (_, i) => i) };
    const r = await api.post(sums, {
      apiVersion: `${group}/v1`,
      kind: "Sum",
      metadata: { name: "budget" },
      spec: { items: Array.from({ length: 15 }, () => item) },
    });
    assert.deepEqual(causes(r), [
      {
        reason: "FieldValueInvalid",
        message:
          'Invalid value: "object": validation failed due to running out of cost budget, no further validation rules will be run',
        field: "spec.items[5]",
      },
    ]);
    const few = await api.post(sums, {
      apiVersion: `${group}/v1`,
      kind: "Sum",
      metadata: { name: "few" },
      spec: { items: Array.from({ length: 5 }, () => item) },
    });
    assert.equal(few.status, 201, few.text);
  });

  test("cel-go's optional syntax: .?field, [?key], [?x] and {?k: v} (kube 1.29+)", async (t) => {
    if (!versionDifference("kube 1.26 reads no optional syntax in CRD rules")) {
      t.skip("kube 1.26's CEL parser reads no .? nor [?]");
      return;
    }
    const text = { type: "string", maxLength: 63 };
    const schema = specRules(
      [
        // A select after `.?` stays optional: `self.?limits.max` is none when limits is absent.
        { rule: "self.?limits.max.orValue(100) >= self.?limits.?min.orValue(0)", message: "max below min" },
        { rule: "self.?labels[?'tier'].orValue('web') in ['web', 'db']", message: "tier" },
        { rule: "[?self.?a, ?self.?b].size() <= 1", message: "a or b, not both" },
        { rule: "self.?items[?0].?name.orValue('first') != 'forbidden'", message: "first item" },
        {
          // One value type throughout: kube refuses a map literal of int and string values.
          rule: "size({'k': 'v', ?'a': self.?a, ?'b': self.?b}) == 1 + (has(self.a) ? 1 : 0) + (has(self.b) ? 1 : 0)",
          message: "map entries",
        },
        { rule: "self.labels.?tier.hasValue() || !has(self.b)", message: "b needs a tier" },
        // Version 2 of the optional library (kube 1.37): first, last, unwrap.
        { rule: "!has(self.tags) || self.tags.last().orValue('') != 'latest'", message: "last tag" },
        { rule: "!has(self.tags) || self.tags.first().orValue('') != 'root'", message: "first tag" },
        {
          rule: "optional.unwrap([self.?a, self.?b]).size() == [self.?a, self.?b].unwrapOpt().size()",
          message: "unwrap",
        },
        { rule: "self.?items[0].?name.orValue('') != 'zero'", message: "index of an optional" },
      ],
      {
        limits: { type: "object", properties: { min: { type: "integer" }, max: { type: "integer" } } },
        labels: { type: "object", maxProperties: 10, additionalProperties: text },
        a: text,
        b: text,
        items: { type: "array", maxItems: 5, items: { type: "object", properties: { name: text } } },
        tags: { type: "array", maxItems: 5, items: text },
      },
    );
    const failed = failuresOf(await install("optionals", "Optional", schema), "Optional");
    assert.deepEqual(await failed("tags", { labels: {}, tags: ["root", "latest"] }), [
      said("last tag"),
      said("first tag"),
    ]);
    assert.deepEqual(await failed("tags-fine", { labels: {}, tags: ["a", "b"], a: "x" }), []);
    assert.deepEqual(await failed("zero", { labels: {}, items: [{ name: "zero" }] }), [
      said("index of an optional"),
    ]);
    assert.deepEqual(await failed("empty", { labels: {} }), []);
    assert.deepEqual(
      await failed("fine", { limits: { min: 1, max: 2 }, labels: { tier: "db" }, b: "x" }),
      [],
    );
    assert.deepEqual(await failed("min-only", { limits: { min: 200 }, labels: {} }), [said("max below min")]);
    assert.deepEqual(await failed("tier", { labels: { tier: "cache" } }), [said("tier")]);
    assert.deepEqual(await failed("both", { labels: { tier: "web" }, a: "x", b: "y" }), [
      said("a or b, not both"),
    ]);
    assert.deepEqual(await failed("item", { labels: {}, items: [{ name: "forbidden" }] }), [
      said("first item"),
    ]);
    assert.deepEqual(await failed("no-tier", { labels: {}, b: "y" }), [said("b needs a tier")]);
    // A field the schema lacks is undefined after `.?` too; a `?` where the syntax allows none is
    // a syntax error. Both are placed where cel-go places them.
    const undefinedAfter = await api.post(
      CRDS,
      crd(
        "limitzs",
        "Limitz",
        specRules([{ rule: "self.?limitz.orValue(1) == 1" }], { limits: { type: "integer" } }),
      ),
    );
    assert.match(
      (causes(undefinedAfter) as { message: string }[])[0]?.message ?? "",
      /compilation failed: ERROR: <input>:1:5: undefined field 'limitz'/,
    );
    const r = await api.post(
      CRDS,
      crd("badoptionals", "BadOptional", specRules([{ rule: "[1, 2].all(x, ?x > 0)" }], {})),
    );
    assert.equal(r.status, 422, r.text);
    const message = (causes(r) as { message: string }[])[0]?.message ?? "";
    // cel-go's ANTLR parser says "extraneous input '?' expecting {...}" here; the embedded server's
    // parser (@bufbuild/cel) words the same syntax error "mismatched input '?'".
    assert.match(
      message,
      knownDifference(
        "cel-go words a misplaced '?' as extraneous input, the embedded parser as mismatched input",
      )
        ? /compilation failed: ERROR: <input>:1:15: Syntax error: /
        : /compilation failed: ERROR: <input>:1:15: Syntax error: mismatched input '\?'/,
    );
  });

  test("optionalOldSelf runs a transition rule on create too, oldSelf an optional (kube 1.29+)", async (t) => {
    if (!versionDifference("kube 1.26 has no optionalOldSelf")) {
      t.skip("kube 1.26 knows no optionalOldSelf");
      return;
    }
    const counters = await install(
      "counters",
      "Counter",
      specRules([], {
        count: {
          type: "integer",
          "x-kubernetes-validations": [
            { rule: "oldSelf.hasValue() || self < 10", message: "starts below 10", optionalOldSelf: true },
            { rule: "self >= oldSelf.orValue(0)", message: "only grows", optionalOldSelf: true },
          ],
        },
      }),
    );
    const failed = failuresOf(counters, "Counter");
    assert.deepEqual(await failed("big", { count: 12 }), ["Invalid value: 12: starts below 10"]);
    assert.deepEqual(await failed("small", { count: 3 }), []);
    const stored = await api.get(`${counters}/small`);
    const update = (count: number) =>
      api.call("PUT", `${counters}/small`, { ...stored.body, spec: { count } });
    assert.equal((await update(20)).status, 200, "above 10 once it exists");
    const shrink = await api.call("PUT", `${counters}/small`, {
      ...(await api.get(`${counters}/small`)).body,
      spec: { count: 1 },
    });
    assert.deepEqual(causes(shrink), [
      { reason: "FieldValueInvalid", message: "Invalid value: 1: only grows", field: "spec.count" },
    ]);
  });
});
