// CRDs whose schemas nest as deep as kube-apiserver 1.37 reads them: it takes every depth its JSON
// decoder takes (10 000 levels of the CRD's body: ~4 995 levels of `properties`, twice as many of
// `items` or `not`), serves the CRD, and creates, prunes, defaults and validates its objects at
// every depth, rules included. Past the decoder's limit the CRD is a 400 in the decoder's words.
// Measured with kube-apiserver 1.37.2 (which takes seconds on the deepest lists and maps: 14 s for
// a CRD of 5 000 `items` levels, 42 s of `additionalProperties`, so those are tested less deep).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { deepCrdText } from "./deep-crds.js";
import { Api, CRDS, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
const group = `deepschema${Date.now().toString(36)}.example.com`;
const crds: string[] = [];

before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("deepschema");
});
after(async () => {
  for (const name of crds) await api.delete(`${CRDS}/${name}`);
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

/** A CRD's JSON text serving `plural` with the schema text `spec` (see deep-crds.ts). */
const crdText = (plural: string, spec: string) => deepCrdText(group, plural, kindOf(plural), spec);
const kindOf = (plural: string) => `D${plural}`;
const objects = (plural: string) => `/apis/${group}/v1/namespaces/${ns}/${plural}`;
const objectText = (plural: string, name: string, spec: string) =>
  `{"apiVersion":"${group}/v1","kind":"${kindOf(plural)}","metadata":{"name":"${name}"},"spec":${spec}}`;

/** Creates the CRD and waits until its resource is served (kube takes seconds on deep schemas). */
async function serve(plural: string, spec: string): Promise<void> {
  const r = await api.post(CRDS, crdText(plural, spec));
  assert.equal(r.status, 201, r.text.slice(0, 300));
  crds.push(`${plural}.${group}`);
  await eventually(`${plural} served`, async () => (await api.get(objects(plural))).status === 200, {
    timeoutMs: 120_000,
  });
}

/** assert.equal for long texts: a mismatch reports where they part, not both texts whole. */
function sameText(actual: string | undefined, expected: string, what: string): void {
  if (actual === expected) return;
  const a = actual ?? "(none)";
  let i = 0;
  while (i < a.length && a[i] === expected[i]) i++;
  assert.fail(
    `${what}: differs at ${i} of ${expected.length}: got …${a.slice(Math.max(0, i - 40), i + 120)}, want …${expected.slice(Math.max(0, i - 40), i + 120)}`,
  );
}

/** `levels` of `{"a": ...}` around `leaf`. */
const nested = (levels: number, leaf: string) => `${'{"a":'.repeat(levels)}${leaf}${"}".repeat(levels)}`;
/** The value `levels` fields `a` below `v`, walked without recursion. */
function dig(v: unknown, levels: number, key: string | number = "a"): unknown {
  let x = v;
  for (let i = 0; i < levels; i++) x = (x as Record<string | number, unknown>)?.[key];
  return x;
}

describe("properties nested 4 990 levels (the most a CRD's body holds)", () => {
  const d = 4_990;
  /** Each level an object with one property `a` down to a short string, defaulted, with a rule. */
  const schema = `${'{"type":"object","properties":{"a":'.repeat(d)}{"type":"string","maxLength":3,"default":"x","x-kubernetes-validations":[{"rule":"self != 'no'"}]}${"}}".repeat(d)}`;
  const deepPath = `spec${".a".repeat(d)}`;

  test("the CRD is served; objects are pruned, defaulted and validated at the deepest level", {
    timeout: 300_000,
  }, async () => {
    await serve("props", schema);
    // Created as given, an unknown field at the bottom pruned, with kube's warning.
    const created = await api.post(
      objects("props"),
      objectText("props", "given", nested(d - 1, '{"a":"ok","junk":1}')),
    );
    assert.equal(created.status, 201, created.text.slice(0, 300));
    assert.deepEqual(dig(created.body.spec, d - 1), { a: "ok" });
    // kube's warning recorder cuts a text to 256 runes once the warnings pass 4 096 in all.
    const warning = `unknown field "${deepPath.slice(0, -2)}.junk"`.slice(0, 256);
    sameText(created.headers.get("warning") ?? "", `299 - ${JSON.stringify(warning)}`, "warning");
    // The leaf defaulted when its object is there without it.
    const defaulted = await api.post(objects("props"), objectText("props", "defaulted", nested(d - 1, "{}")));
    assert.equal(defaulted.status, 201, defaulted.text.slice(0, 300));
    assert.equal(dig(defaulted.body.spec, d), "x");
    // Too long at the bottom: kube's words with the whole path.
    const long = await api.post(objects("props"), objectText("props", "long", nested(d, '"toolong"')));
    assert.equal(long.status, 422, long.text.slice(0, 300));
    sameText(long.body.details.causes[0].field, deepPath, "field");
    assert.equal(long.body.details.causes[0].message, "Too long: may not be more than 3 bytes");
    // The rule at the bottom speaks.
    const no = await api.post(objects("props"), objectText("props", "no", nested(d, '"no"')));
    assert.equal(no.status, 422, no.text.slice(0, 300));
    sameText(
      no.body.message,
      `${kindOf("props")}.${group} "no" is invalid: ${deepPath}: Invalid value: "no": failed rule: self != 'no'`,
      "rule",
    );
    // Read back whole.
    const read = await api.get(`${objects("props")}/given`);
    assert.equal(read.status, 200);
    assert.equal(dig(read.body.spec, d), "ok");
  });

  test("the OpenAPI documents publish it", { timeout: 300_000 }, async () => {
    // kube publishes a CRD's schema a moment after it is served.
    const name = `${group.split(".").reverse().join(".")}.v1.${kindOf("props")}`;
    for (const [path, where] of [
      [`/openapi/v3/apis/${group}/v1`, "components"],
      ["/openapi/v2", "definitions"],
    ] as const) {
      await eventually(
        `${path} publishes ${name}`,
        async () => {
          const r = await api.getBytes(path, "application/json");
          if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.bytes.toString().slice(0, 200)}`);
          const doc = JSON.parse(r.bytes.toString());
          const schema = where === "components" ? doc.components?.schemas?.[name] : doc.definitions?.[name];
          let x = schema?.properties?.spec;
          for (let i = 0; i < d; i++) x = x?.properties?.a;
          return x?.type === "string";
        },
        { timeoutMs: 120_000 },
      );
    }
  });

  test("one level more than the body holds: the decoder's 400", async () => {
    const deeper = `${'{"type":"object","properties":{"a":'.repeat(d + 10)}{"type":"string"}${"}}".repeat(d + 10)}`;
    const r = await api.post(CRDS, crdText("toodeep", deeper));
    assert.equal(r.status, 400, r.text.slice(0, 300));
    assert.match(
      r.body.message,
      /^the object provided is unrecognized \(must be of type CustomResourceDefinition\): couldn't get version\/kind; json parse error: invalid character '\{' exceeded max depth/,
    );
  });
});

describe("lists, maps and combinators nested deep", () => {
  test("items and additionalProperties 2 000 levels: served, validated with the item path", {
    timeout: 300_000,
  }, async () => {
    const d = 2_000;
    const leaf = '{"type":"string","maxLength":3}';
    await serve("lists", `${'{"type":"array","items":'.repeat(d)}${leaf}${"}".repeat(d)}`);
    await serve("maps", `${'{"type":"object","additionalProperties":'.repeat(d)}${leaf}${"}".repeat(d)}`);
    const list = (v: string) => `${"[".repeat(d)}${v}${"]".repeat(d)}`;
    const ok = await api.post(objects("lists"), objectText("lists", "ok", list('"ok"')));
    assert.equal(ok.status, 201, ok.text.slice(0, 300));
    assert.equal(dig(ok.body.spec, d, 0), "ok");
    const long = await api.post(objects("lists"), objectText("lists", "long", list('"toolong"')));
    assert.equal(long.status, 422, long.text.slice(0, 300));
    sameText(long.body.details.causes[0].field, `spec${"[0]".repeat(d)}`, "list field");
    const okMap = await api.post(objects("maps"), objectText("maps", "ok", nested(d, '"ok"')));
    assert.equal(okMap.status, 201, okMap.text.slice(0, 300));
    const longMap = await api.post(objects("maps"), objectText("maps", "long", nested(d, '"toolong"')));
    assert.equal(longMap.status, 422, longMap.text.slice(0, 300));
    sameText(longMap.body.details.causes[0].field, `spec${".a".repeat(d)}`, "map field");
  });

  test("allOf, anyOf and oneOf 2 000 levels, not 5 000: each error printed once", {
    timeout: 300_000,
  }, async () => {
    const inner = '{"minProperties":1}';
    const within = (k: string, d: number) => `${`{"${k}":[`.repeat(d)}${inner}${"]}".repeat(d)}`;
    const open = (combined: string) =>
      `{"type":"object","x-kubernetes-preserve-unknown-fields":true,${combined.slice(1)}`;
    const nots = `${'{"not":'.repeat(5_000)}${inner}${"}".repeat(5_000)}`;
    const count = '"spec in body should have at least 1 properties"';
    const cases: [string, string, string][] = [
      [
        "allof",
        open(within("allOf", 2_000)),
        `[spec: Invalid value: 0: ${JSON.parse(count)}, <nil>: Invalid value: "": "spec" must validate all the schemas (allOf). None validated]`,
      ],
      [
        "anyof",
        open(within("anyOf", 2_000)),
        `[<nil>: Invalid value: "": "spec" must validate at least one schema (anyOf), spec: Invalid value: 0: ${JSON.parse(count)}]`,
      ],
      [
        "oneof",
        open(within("oneOf", 2_000)),
        `[<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found none valid, spec: Invalid value: 0: ${JSON.parse(count)}]`,
      ],
      // An even number of nots: {a: 1} has properties, so it validates every other level.
      ["not", open(nots), `<nil>: Invalid value: "": "spec" must not validate the schema (not)`],
    ];
    for (const [plural, spec] of cases) await serve(plural, spec);
    for (const [plural, , message] of cases) {
      const ok = await api.post(objects(plural), objectText(plural, "ok", '{"a":1}'));
      assert.equal(ok.status, 201, `${plural}: ${ok.text.slice(0, 300)}`);
      const bad = await api.post(objects(plural), objectText(plural, "bad", "{}"));
      assert.equal(bad.status, 422, `${plural}: ${bad.text.slice(0, 300)}`);
      sameText(bad.body.message, `${kindOf(plural)}.${group} "bad" is invalid: ${message}`, plural);
    }
  });
});

describe("rules nested past cel-go's parser limits (250)", () => {
  /** A CRD whose spec has one rule (and 260 levels of `a` to select); the answer to its create. */
  async function withRule(plural: string, rule: string) {
    const schema = `{"type":"object","x-kubernetes-validations":[{"rule":${JSON.stringify(rule)}}],"properties":{"a":${'{"type":"object","properties":{"a":'.repeat(259)}{"type":"string"}${"}}".repeat(259)}}}`;
    const r = await api.post(CRDS, crdText(plural, schema));
    if (r.status === 201) crds.push(`${plural}.${group}`);
    return r;
  }
  const refused = (plural: string, rule: string, error: string) =>
    `CustomResourceDefinition.apiextensions.k8s.io "${plural}.${group}" is invalid: spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Invalid value: ${JSON.stringify(
      JSON.stringify({
        Rule: rule,
        Message: "",
        MessageExpression: "",
        Reason: null,
        FieldPath: "",
        OptionalOldSelf: null,
      }),
    )
      .slice(1, -1)
      .replace(/\\"/g, '"')
      .replace(
        /[<>&]/g,
        (c) => `\\u00${c.charCodeAt(0).toString(16)}`,
      )}: compilation failed: ERROR: <input>:-1:0: ${error}`;

  test("at the limits a rule compiles; one more level is refused in cel-go's words", async () => {
    const cases: [string, string, string | undefined][] = [
      // The listener: the expr rule entered 250 times at once at most.
      ["parens249", `${"(".repeat(249)}true${")".repeat(249)}`, undefined],
      ["parens250", `${"(".repeat(250)}true${")".repeat(250)}`, "expression recursion limit exceeded: 250"],
      // The visitor: 250 nested selects, operators at most.
      ["selects250", `has(self${".a".repeat(250)})`, undefined],
      ["selects251", `has(self${".a".repeat(251)})`, "max recursion depth exceeded"],
      ["sum249", `${"1 + ".repeat(249)}1 > 0`, undefined],
      ["sum250", `${"1 + ".repeat(250)}1 > 0`, "max recursion depth exceeded"],
      // And the size of its source: 100 000 code points at most.
      ["size100000", `${"true && ".repeat(12_499)}true${" ".repeat(4)}`, undefined],
      [
        "size100001",
        `${"true && ".repeat(12_499)}true${" ".repeat(5)}`,
        "expression code point size exceeds limit: size: 100001, limit 100000",
      ],
    ];
    for (const [plural, rule, error] of cases) {
      const r = await withRule(plural, rule);
      if (error === undefined) assert.equal(r.status, 201, `${plural}: ${r.text.slice(-300)}`);
      else {
        assert.equal(r.status, 422, `${plural}: ${r.text.slice(-300)}`);
        sameText(r.body.message, refused(plural, rule, error), plural);
      }
    }
  });
});
