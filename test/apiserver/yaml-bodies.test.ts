// YAML request bodies as kube-apiserver 1.37 reads them: sigs.k8s.io/yaml's YAMLToJSON over
// go-yaml v2, a YAML 1.1 reader. `yes`, `on`, `n` are booleans, `0x1F`, `017`, `1_000` integers,
// keys become strings in Go's way, merge keys merge, aliases expand within go-yaml's budget, and
// what JSON cannot hold is refused in go-yaml's or Go's words. The same raw bodies go to a
// ConfigMap (Go's struct decoder), a custom resource that keeps every field, one with a typed
// schema, and server-side apply; the answers are kube-apiserver 1.37.2's, literally.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { Api, CRDS, customResourceDefinition, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
let ns: string;
const group = `yaml${Date.now().toString(36)}.example.com`;
const typedSchema = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        s: { type: "string" },
        i: { type: "integer" },
        b: { type: "boolean" },
        m: { type: "object", additionalProperties: { type: "string" } },
        l: { type: "array", items: { type: "string" } },
      },
    },
  },
};
before(async () => {
  target = await startTarget();
  api = new Api(target);
  ns = await api.namespace("yb");
  for (const crd of [
    customResourceDefinition(group, { plural: "things", kind: "Thing" }),
    customResourceDefinition(group, { plural: "typeds", kind: "Typed" }, typedSchema),
  ]) {
    const r = await api.post(CRDS, crd);
    assert.equal(r.status, 201, r.text);
  }
  await eventually(
    "the CRDs are served",
    async () => (await api.get(things())).status === 200 && (await api.get(typeds())).status === 200,
    { timeoutMs: 60_000 },
  );
  const r = await api.post(cms(), { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "target" } });
  assert.equal(r.status, 201, r.text);
});
after(async () => {
  await api.delete(`${CRDS}/things.${group}`);
  await api.delete(`${CRDS}/typeds.${group}`);
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

const cms = () => `/api/v1/namespaces/${ns}/configmaps`;
const things = () => `/apis/${group}/v1/namespaces/${ns}/things`;
const typeds = () => `/apis/${group}/v1/namespaces/${ns}/typeds`;
const YAML = { contentType: "application/yaml" };
const APPLY = { contentType: "application/apply-patch+yaml" };

let names = 0;
const fresh = (prefix: string) => `${prefix}${++names}`;
/** Lines indented under a field. */
const indent = (lines: string) => lines.replace(/^(?=.)/gm, "  ");
const configMap = (name: string, data: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n${indent(data)}`;
const thing = (name: string, spec: string, kind = "Thing") =>
  `apiVersion: ${group}/v1\nkind: ${kind}\nmetadata:\n  name: ${name}\nspec:\n${indent(spec)}`;
/** kube's summarizeData of a body it could not read: its first 30 bytes in hex. */
const summary = (body: string) => {
  const bytes = Buffer.from(body, "utf8");
  if (bytes.length === 0) return "<empty>";
  const head = bytes.subarray(0, 30);
  return `${bytes[0] === 0x7b ? head.toString("utf8") : head.toString("hex")}${bytes.length > 30 ? " ..." : ""}`;
};
const unreadable = (kind: string, body: string, words: string) =>
  `the object provided is unrecognized (must be of type ${kind}): ${words} (${summary(body)})`;

describe("plain scalars and keys, as go-yaml v2 resolves them", () => {
  test("a custom resource keeping every field stores YAML 1.1's values", async () => {
    const spec = [
      "bools: [y, Y, yes, Yes, YES, on, On, ON, true, True, TRUE, n, N, no, No, NO, off, Off, OFF, false, False, FALSE]",
      "nulls: [~, null, Null, NULL, '', !!null '']",
      "ints: [0x1F, 0X1F, 0o17, 017, 08, 0b101, -0b101, 1_000, 1__0, 1_, +12, -0, 0644, 0xFFFFFFFFFFFFFFFF]",
      "floats: [1e3, 1E3, 1e+3, .5, 1., 1.0, -1.5e-3, +.5, 09.5, 0.1, 1e21, 1e-400]",
      "strings: [_1, 0x, 0b2, 0o8, 1e, e3, infinity, nan, 1.5e400, 0x10000000000000000, 1:20, 1:20:30.5, '<<', =, +]",
      "dates: [2001-12-14, 2001-12-14T21:59:43.10-05:00, 2001-12-14 21:59:43.10, 2001-1-2]",
      "big: [9223372036854775807, 18446744073709551615, 99999999999999999999, -9223372036854775809]",
      "tags: [!!str 3, !!int '3', !!int '0x10', !!float 3, !!bool yes, !!binary aGVsbG8=, !foo bar, ! 1, !!seq x, !!timestamp 2001-12-14]",
      "quoted: ['yes', \"1\", 'it''s', \"\\x41\\u00e9\\t\"]",
      "blocks:",
      "  literal: |",
      "    on",
      "    1",
      "  folded: >",
      "    x",
      "    y",
      "on: off",
      "emptyValue:",
      "comment: yes # a comment, then a line of one",
      "# yes",
      "hash: a#b",
    ].join("\n");
    const name = fresh("scalars");
    const r = await api.call("POST", things(), thing(name, `${spec}\n`), YAML);
    assert.equal(r.status, 201, r.text);
    assert.equal(r.headers.get("warning"), null);
    assert.deepEqual(r.body.spec, {
      bools: [...Array(11).fill(true), ...Array(11).fill(false)],
      nulls: [null, null, null, null, "", null],
      // Numbers past 2^53 as JSON.parse reads kube's answer back.
      ints: [31, 31, 15, 15, 8, 5, -5, 1000, 10, 1, 12, 0, 420, 2 ** 64],
      floats: [1000, 1000, 1000, 0.5, 1, 1, -0.0015, 0.5, 9.5, 0.1, 1e21, 0],
      strings: [
        "_1",
        "0x",
        "0b2",
        "0o8",
        "1e",
        "e3",
        "infinity",
        "nan",
        "1.5e400",
        "0x10000000000000000",
        "1:20",
        "1:20:30.5",
        "<<",
        "=",
        "+",
      ],
      dates: ["2001-12-14", "2001-12-14T21:59:43.10-05:00", "2001-12-14 21:59:43.10", "2001-1-2"],
      big: [2 ** 63, 2 ** 64, 1e20, -(2 ** 63)],
      tags: ["3", 3, 16, 3, true, "hello", "bar", "1", "x", "2001-12-14"],
      quoted: ["yes", "1", "it's", "Aé\t"],
      blocks: { literal: "on\n1\n", folded: "x y\n" },
      true: false,
      emptyValue: null,
      comment: true,
      hash: "a#b",
    });
  });

  test("keys become JSON names in sigs.k8s.io/yaml's way (floats through float32)", async () => {
    const name = fresh("keys");
    const body = thing(
      name,
      "keys: {1: int, 0x10: hex, 0o10: octal, 1_0: underscored, 1e3: float, 1.5: half, 3.14159265358979: pi, 1234567.5: wide, 0.000001: small, 1e20: large, .inf: inf, -.inf: ninf, .nan: nan, true: bool, n: no, 2001-12-14: date, !!binary aGk=: binary, '~': tilde}\n",
    );
    const r = await api.call("POST", things(), body, YAML);
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.body.spec.keys, {
      "1": "int",
      "16": "hex",
      "8": "octal",
      "10": "underscored",
      "1000": "float",
      "1.5": "half",
      "3.1415927": "pi",
      "1.2345675e+06": "wide",
      "1e-06": "small",
      "1e+20": "large",
      ".inf": "inf",
      "-.inf": "ninf",
      ".nan": "nan",
      true: "bool",
      false: false,
      "2001-12-14": "date",
      hi: "binary",
      "~": "tilde",
    });
  });

  test("a ConfigMap's strings take no YAML 1.1 boolean or number: Go's struct decoder refuses them", async () => {
    for (const [value, type] of [
      ["yes", "bool"],
      ["On", "bool"],
      ["n", "bool"],
      ["0x1F", "number"],
      ["1e3", "number"],
      ["1_000", "number"],
      ["18446744073709551615", "number"],
    ]) {
      const r = await api.call("POST", cms(), configMap(fresh("refused"), `a: ${value}\n`), YAML);
      assert.equal(r.status, 400, `${value}: ${r.text}`);
      assert.equal(r.body.reason, "BadRequest");
      assert.equal(
        r.body.message,
        `ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal ${type} into Go struct field ConfigMap.data of type string`,
        value,
      );
    }
    const name = fresh("strings");
    const data =
      "quoted: 'yes'\ntagged: !!str on\ndate: 2001-12-14\nsexagesimal: 1:20\nbinary: !!binary aGVsbG8=\nhuge: 1.5e400\nlocal: !x 0x1F\n";
    const r = await api.call("POST", cms(), configMap(name, data), YAML);
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.body.data, {
      quoted: "yes",
      tagged: "on",
      date: "2001-12-14",
      sexagesimal: "1:20",
      binary: "hello",
      huge: "1.5e400",
      local: "0x1F",
    });
  });

  test("a typed custom resource validates the values YAML 1.1 gives", async () => {
    const invalid = (name: string, field: string, got: string, want: string) =>
      `Typed.${group} "${name}" is invalid: ${field}: Invalid value: "${got}": ${field} in body must be of type ${want}: "${got}"`;
    for (const [spec, field, got, want] of [
      ["s: yes", "spec.s", "boolean", "string"],
      ["s: 017", "spec.s", "integer", "string"],
      ["b: 'on'", "spec.b", "string", "boolean"],
      ["m: {a: off}", "spec.m.a", "boolean", "string"],
    ]) {
      const name = fresh("typed");
      const r = await api.call("POST", typeds(), thing(name, `${spec}\n`, "Typed"), YAML);
      assert.equal(r.status, 422, `${spec}: ${r.text}`);
      assert.equal(r.body.message, invalid(name, field, got, want), spec);
    }
    const name = fresh("typed");
    const r = await api.call(
      "POST",
      typeds(),
      thing(name, "i: 0x10\nb: on\ns: 2001-12-14\nl: [!!str yes, '1']\n", "Typed"),
      YAML,
    );
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.body.spec, { i: 16, b: true, s: "2001-12-14", l: ["yes", "1"] });
    // `n` is a key too: the boolean false, a field the schema does not know.
    const unknown = await api.call("POST", typeds(), thing(fresh("typed"), "n: 1\n", "Typed"), YAML);
    assert.equal(unknown.status, 201, unknown.text);
    assert.equal(unknown.headers.get("warning"), '299 - "unknown field \\"spec.false\\""');
    assert.deepEqual(unknown.body.spec, {});
  });
});

describe("merge keys and aliases", () => {
  test("<< merges maps in go-yaml's order, each overwritten key a repeat", async () => {
    const spec = [
      "base: &base {a: 1, b: 1}", // line 6
      "other: &other {b: 2, c: 2}",
      "later: {a: 0, <<: *base}", // the merge comes after a: its values win
      "earlier: {<<: *base, a: 0}",
      "list: {<<: [*base, *other]}", // the first map listed wins
      "alias: *base",
      "quoted: {'<<': *base}",
      "tagged: {!!merge <<: {d: 4}}",
    ].join("\n");
    const name = fresh("merge");
    const r = await api.call("POST", things(), thing(name, `${spec}\n`), YAML);
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.body.spec, {
      base: { a: 1, b: 1 },
      other: { b: 2, c: 2 },
      later: { a: 1, b: 1 },
      earlier: { a: 0, b: 1 },
      list: { a: 1, b: 1, c: 2 },
      alias: { a: 1, b: 1 },
      quoted: { "<<": { a: 1, b: 1 } },
      tagged: { d: 4 },
    });
    assert.deepEqual(r.headers.get("warning")?.split(", "), [
      '299 - "line 6: key \\"a\\" already set in map"',
      '299 - "line 9: key \\"a\\" already set in map"',
      '299 - "line 6: key \\"b\\" already set in map"',
    ]);
    const strict = await api.call(
      "POST",
      `${things()}?fieldValidation=Strict`,
      thing(fresh("merge"), "a: 1\n<<: {a: 2}\n"),
      YAML,
    );
    assert.equal(strict.status, 400, strict.text);
    assert.equal(
      strict.body.message,
      'Thing in version "v1" cannot be handled as a Thing: strict decoding error: yaml: unmarshal errors:\n  line 7: key "a" already set in map',
    );
  });

  test("an alias is a copy: the stored values are independent", async () => {
    const name = fresh("copies");
    const r = await api.call(
      "POST",
      things(),
      thing(name, "a: &x {list: [1, {k: v}]}\nb: *x\nc: *x\n"),
      YAML,
    );
    assert.equal(r.status, 201, r.text);
    const patched = await api.patch(`${things()}/${name}`, { spec: { b: { list: [2] } } });
    assert.equal(patched.status, 200, patched.text);
    assert.deepEqual(patched.body.spec, {
      a: { list: [1, { k: "v" }] },
      b: { list: [2] },
      c: { list: [1, { k: "v" }] },
    });
  });
});

describe("what go-yaml and YAMLToJSON refuse, in kube's words", () => {
  const laughs = [
    "a: &a [x, x, x, x, x, x, x, x, x, x]",
    "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]",
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]",
    "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]",
    "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]",
    "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]",
    "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]",
    "h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]",
    "i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]",
  ].join("\n");
  const refused: [string, string][] = [
    ["a: .inf", "json: unsupported value: +Inf"],
    ["a: [1, -.Inf]", "json: unsupported value: -Inf"],
    ["a: .NaN", "json: unsupported value: NaN"],
    ["~: 1", "unsupported map key of type: %!s(<nil>), key: <nil>, value: 1"],
    ["null: [a]", 'unsupported map key of type: %!s(<nil>), key: <nil>, value: []interface {}{"a"}'],
    ["18446744073709551615: x", 'unsupported map key of type: uint64, key: 0xffffffffffffffff, value: "x"'],
    ["[1, 2]: x", "yaml: invalid map key: []interface {}{1, 2}"],
    ["? {a: 1}\n: x", 'yaml: invalid map key: map[interface {}]interface {}{"a":1}'],
    ["a: *nope", "yaml: unknown anchor 'nope' referenced"],
    ["a: &x [1, *x]", "yaml: anchor 'x' value contains itself"],
    ["a: &x {b: *x}", "yaml: anchor 'x' value contains itself"],
    ["<<: 1", "yaml: map merge requires map or sequence of maps as the value"],
    ["<<: [{a: 1}, 2]", "yaml: map merge requires map or sequence of maps as the value"],
    ["a: !!int abc", "yaml: cannot decode !!str `abc` as a !!int"],
    ["a: !!int 1.5", "yaml: cannot decode !!float `1.5` as a !!int"],
    ["a: !!bool 1", "yaml: cannot decode !!int `1` as a !!bool"],
    ["a: !!null x", "yaml: cannot decode !!str `x` as a !!null"],
    ["a: !!float 18446744073709551615", "yaml: cannot decode !!int `18446744073709551615` as a !!float"],
    ["a: !!binary '@@'", "yaml: !!binary value contains invalid base64 data"],
    ["a: \u0001", "yaml: control characters are not allowed"],
    ["a: 'open", "yaml: line 7: found unexpected end of stream"],
    ["a:\n\tb: 1", "yaml: line 7: found character that cannot start any token"],
    ["a: [1", "yaml: line 6: did not find expected ',' or ']'"],
    ["a:\n  b: 1\n c: 2", "yaml: line 7: did not find expected key"],
    ["a:\n  - 1\n  b: 2", "yaml: line 7: did not find expected '-' indicator"],
    ["a: 1\n  b: 2", "yaml: line 7: mapping values are not allowed in this context"],
    ["a: @b", "yaml: line 6: found character that cannot start any token"],
    ["a: 1\nb", "yaml: line 8: could not find expected ':'"],
    ["a\n  b: 1", "yaml: line 7: mapping values are not allowed in this context"],
    ["a: 1\nb\n  c: 1", "yaml: line 8: could not find expected ':'"],
    ['a: "\\q"', "yaml: line 6: found unknown escape character"],
    [laughs, "yaml: document contains excessive aliasing"],
  ];

  test("creating a custom resource", async () => {
    for (const [spec, words] of refused) {
      const body = thing(fresh("bad"), `${spec}\n`);
      const r = await api.call("POST", things(), body, YAML);
      assert.equal(r.status, 400, `${spec}: ${r.text}`);
      assert.equal(r.body.reason, "BadRequest", spec);
      assert.equal(r.body.message, unreadable("Thing", body, words), spec);
    }
  });

  test("updating a ConfigMap", async () => {
    for (const [data, words] of refused) {
      const body = configMap("target", `${data}\n`);
      const r = await api.call("PUT", `${cms()}/target`, body, YAML);
      assert.equal(r.status, 400, `${data}: ${r.text}`);
      assert.equal(r.body.message, unreadable("ConfigMap", body, words), data);
    }
  });

  test("server-side apply: the patcher's words", async () => {
    for (const [data, words] of refused) {
      const body = configMap("target", `${data}\n`);
      const r = await api.call("PATCH", `${cms()}/target?fieldManager=m`, body, APPLY);
      assert.equal(r.status, 400, `${data}: ${r.text}`);
      assert.equal(r.body.message, `error encoding patch: ${words}`, data);
    }
  });

  test("alias expansion: go-yaml's budget, to the alias", async () => {
    // Each *b expands to 121 nodes: at 167 of them, more than 99% of what is decoded is aliased.
    const spec = (m: number) =>
      `a: &a [${Array(10).fill("x").join(", ")}]\nb: &b [${Array(10).fill("*a").join(", ")}]\nc: [${Array(m).fill("*b").join(", ")}]\n`;
    const kept = await api.call("POST", things(), thing(fresh("budget"), spec(166)), YAML);
    assert.equal(kept.status, 201, kept.text.slice(0, 300));
    assert.equal(kept.body.spec.c.length, 166);
    assert.deepEqual(kept.body.spec.c[165][9], Array(10).fill("x"));
    const body = thing(fresh("budget"), spec(167));
    const refused = await api.call("POST", things(), body, YAML);
    assert.equal(refused.status, 400, refused.text.slice(0, 300));
    assert.equal(
      refused.body.message,
      unreadable("Thing", body, "yaml: document contains excessive aliasing"),
    );
  });

  test("JSON sent as YAML is read as YAML 1.1: no \\/ escape, no half surrogate pair", async () => {
    for (const [value, words] of [
      ['"a\\/b"', "yaml: found unknown escape character"],
      ['"\\ud83d\\ude00"', "yaml: found invalid Unicode character escape code"],
    ]) {
      const name = fresh("json");
      const json = (kind: string, apiVersion: string) =>
        `{"apiVersion":"${apiVersion}","kind":"${kind}","metadata":{"name":"${name}"},"spec":{"a":${value}}}`;
      const body = json("Thing", `${group}/v1`);
      const created = await api.call("POST", things(), body, YAML);
      assert.equal(created.status, 400, created.text);
      assert.equal(created.body.message, unreadable("Thing", body, words));
      const applied = await api.call("PATCH", `${things()}/${name}?fieldManager=m`, body, APPLY);
      assert.equal(applied.status, 400, applied.text);
      assert.equal(applied.body.message, `error decoding patch: error converting YAML to JSON: ${words}`);
      // As JSON, both are fine.
      const plain = await api.call("POST", things(), body);
      assert.equal(plain.status, 201, plain.text);
    }
  });

  test("a YAML version other than 1.1", async () => {
    const body = `%YAML 1.2\n---\n${thing(fresh("v12"), "a: 1\n")}`;
    const r = await api.call("POST", things(), body, YAML);
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.message, unreadable("Thing", body, "yaml: found incompatible YAML document"));
    const accepted = await api.call(
      "POST",
      things(),
      `%YAML 1.1\n---\n${thing(fresh("v11"), "a: yes\n")}`,
      YAML,
    );
    assert.equal(accepted.status, 201, accepted.text);
    assert.deepEqual(accepted.body.spec, { a: true });
  });
});

describe("documents", () => {
  test("only the first document is read; a byte order mark and bare carriage returns are fine", async () => {
    const first = fresh("first");
    const r = await api.call(
      "POST",
      things(),
      `${thing(first, "a: yes\n")}---\nkind: Other\n---\nb: [\n`,
      YAML,
    );
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.metadata.name, first);
    assert.deepEqual(r.body.spec, { a: true });
    const bom = await api.call("POST", things(), `\ufeff${thing(fresh("bom"), "a: on\n")}`, YAML);
    assert.equal(bom.status, 201, bom.text);
    assert.deepEqual(bom.body.spec, { a: true });
    const cr = await api.call(
      "POST",
      things(),
      thing(fresh("cr"), "a: 1\nb: off\n").replaceAll("\n", "\r"),
      YAML,
    );
    assert.equal(cr.status, 201, cr.text);
    assert.deepEqual(cr.body.spec, { a: 1, b: false });
  });

  test("no object: a custom resource needs a kind, a ConfigMap is empty", async () => {
    for (const body of ["", "# nothing\n", "---\n", "~\n"]) {
      const r = await api.call("POST", things(), body, YAML);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.body.message, unreadable("Thing", body, `Object 'Kind' is missing in '${body}'`));
      const cm = await api.call("POST", cms(), body, YAML);
      assert.equal(cm.status, 422, cm.text);
      assert.equal(
        cm.body.message,
        'ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required',
      );
    }
    const typeMeta =
      'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';
    for (const [body, type] of [
      ["- a\n", "array"],
      ["yes\n", "bool"],
      ["0x10\n", "number"],
      ["text\n", "string"],
    ]) {
      const r = await api.call("POST", things(), body, YAML);
      assert.equal(r.status, 400, r.text);
      assert.equal(
        r.body.message,
        unreadable(
          "Thing",
          body,
          `couldn't get version/kind; json parse error: json: cannot unmarshal ${type} into Go value of type ${typeMeta}`,
        ),
      );
    }
  });
});

describe("server-side apply", () => {
  test("an apply configuration is read as YAML 1.1", async () => {
    const name = fresh("applied");
    const r = await api.call(
      "PATCH",
      `${things()}/${name}?fieldManager=m`,
      thing(name, "a: yes\nb: 0x10\n1: one\nc: &c {d: off}\ne: *c\n"),
      APPLY,
    );
    assert.equal(r.status, 201, r.text);
    assert.deepEqual(r.body.spec, { a: true, b: 16, "1": "one", c: { d: false }, e: { d: false } });
    const cm = await api.call(
      "PATCH",
      `${cms()}/target?fieldManager=m`,
      configMap("target", `a: "1"\n<<: {a: "2", b: !!str 3}\n`),
      APPLY,
    );
    assert.equal(cm.status, 200, cm.text);
    assert.deepEqual(cm.body.data, { a: "2", b: "3" });
    assert.equal(cm.headers.get("warning"), '299 - "line 7: key \\"a\\" already set in map"');
  });

  test("a boolean where a ConfigMap wants a string fails the typed patch", async () => {
    const r = await api.call(
      "PATCH",
      `${cms()}/target?fieldManager=m`,
      configMap("target", "a: yes\n"),
      APPLY,
    );
    assert.equal(r.status, 500, r.text);
    assert.equal(
      r.body.message,
      "failed to create typed patch object (/target; /v1, Kind=ConfigMap): .data.a: expected string, got &value.valueUnstructured{Value:true}",
    );
  });
});

test("a large body is read without stalling the server", async () => {
  // Many small scalars and one long one, near kube's 3 MiB body limit.
  const items = Array.from({ length: 50_000 }, (_, i) => `- ${i % 2 ? "yes" : `0x${i.toString(16)}`}`).join(
    "\n",
  );
  const body = thing(fresh("large"), `list:\n${indent(items)}\nlong: ${"y".repeat(500_000)}\n`);
  const started = performance.now();
  const [r, version] = await Promise.all([
    api.call("POST", things(), body, YAML),
    (async () => {
      const t = performance.now();
      await api.get("/version");
      return performance.now() - t;
    })(),
  ]);
  assert.equal(r.status, 201, r.text.slice(0, 300));
  assert.equal(r.body.spec.list.length, 50_000);
  assert.equal(r.body.spec.list[1], true);
  assert.equal(r.body.spec.list[2], 2);
  assert.equal(r.body.spec.long.length, 500_000);
  // Generous bounds for a loaded 2-core machine: a quadratic reader would take minutes.
  assert.ok(performance.now() - started < 60_000);
  assert.ok(version < 60_000);
});
