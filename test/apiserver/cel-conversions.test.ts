// CEL's conversions from strings and of doubles to strings, as cel-go (kube 1.37.2's v0.29.2)
// does them: int()/uint()/double()/bool() parse with Go's strconv (base 10, no blanks, no
// prefixes; out of range is an error, not an overflow), and a failed parse is "type conversion
// error from 'string' to 'int'"; string(double) formats with Go's %g (1e+06, 1e-05, +Inf).
// JavaScript's BigInt()/Number()/toString() each accept or write something else. Integer
// overflow and division by zero read as cel-go words them. And a dry-run create's answer has no
// resourceVersion, as kube's.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { Api, CRDS, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
const run = Date.now().toString(36);
const group = `conv${run}.example.com`;
const ns = `conv-${run}`;
const plural = "convs";
const collection = `/apis/${group}/v1/namespaces/${ns}/${plural}`;

/** The string of what `self.s` converts to (by `self.to`), or the conversion's error. */
const CONVERTED =
  "self.to == 'int' ? string(int(self.s)) : self.to == 'uint' ? string(uint(self.s)) : self.to == 'double' ? string(double(self.s)) : string(bool(self.s))";

/** An operation on `self.i` or `self.f` by `self.op`, which may overflow or divide by zero. */
const ARITHMETIC =
  "self.op == 'add' ? self.i + 9223372036854775807 > 0 : self.op == 'sub' ? uint(self.i) - 2u > 0u : self.op == 'div' ? 1 / self.i > 0 : self.op == 'mod' ? 1 % self.i > 0 : self.op == 'udiv' ? 1u / uint(self.i) > 0u : self.op == 'neg' ? -self.i > 0 : self.op == 'int' ? int(self.f) > 0 : uint(self.f) > 0u";

// The rule fails on purpose: its messageExpression is the conversion's result, and an error in
// the rule itself (the same conversion) is the 422's cause.
const crd = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: { name: `${plural}.${group}` },
  spec: {
    group,
    scope: "Namespaced",
    names: { plural, singular: "conv", kind: "Conv", listKind: "ConvList" },
    versions: [
      {
        name: "v1",
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: {
              spec: {
                type: "object",
                properties: {
                  to: { type: "string" },
                  s: { type: "string" },
                  d: { type: "number" },
                  op: { type: "string" },
                  i: { type: "integer" },
                  f: { type: "number" },
                },
                "x-kubernetes-validations": [
                  {
                    rule: `!has(self.op) || (${ARITHMETIC})`,
                    message: "computed",
                  },
                  {
                    rule: "!has(self.d)",
                    messageExpression: "string(self.d)",
                  },
                  {
                    rule: "!has(self.s)",
                    messageExpression: `${CONVERTED}`,
                  },
                  {
                    rule: `!has(self.s) || (${CONVERTED}) != ''`,
                    message: "converted",
                  },
                ],
              },
            },
          },
        },
      },
    ],
  },
};

before(async () => {
  target = await startTarget();
  api = new Api(target);
  assert.equal((await api.post("/api/v1/namespaces", { metadata: { name: ns } })).status, 201);
  const r = await api.post(CRDS, crd);
  assert.equal(r.status, 201, r.text);
  await eventually("the CRD served", async () => (await api.get(collection)).status === 200, {
    timeoutMs: 30_000,
  });
});
after(async () => {
  await api.delete(`${CRDS}/${plural}.${group}`);
  await api.delete(`/api/v1/namespaces/${ns}`);
  await target.close();
});

let n = 0;
/** A dry-run create of a Conv with `spec`: its status and the causes of its 422. */
async function post(spec: Record<string, unknown>) {
  const r = await api.post(`${collection}?dryRun=All`, {
    apiVersion: `${group}/v1`,
    kind: "Conv",
    metadata: { name: `c${n++}` },
    spec,
  });
  const body = r.body as { details?: { causes?: { message?: string }[] } };
  return { r, causes: (body.details?.causes ?? []).map((c) => c.message ?? "") };
}

async function causes(spec: Record<string, unknown>): Promise<string[]> {
  const { r, causes } = await post(spec);
  assert.equal(r.status, 422, r.text);
  return causes;
}

// What kube-apiserver 1.37.2 answered.
const value = (text: string) => [`Invalid value: ${text}`];
const conversionError = (to: string) => [
  "Invalid value: failed rule: !has(self.s)",
  `Invalid value: "object": type conversion error from 'string' to '${to}' evaluating rule: converted`,
];
const evaluationError = (text: string) => [`Invalid value: "object": ${text} evaluating rule: computed`];

describe("CEL conversions as cel-go does them", () => {
  test("string(double) is Go's %g", async () => {
    const cases: [number, string][] = [
      [1, "1"],
      [0.5, "0.5"],
      [100000, "100000"],
      [1000000, "1e+06"],
      [1234567, "1.234567e+06"],
      [0.0001, "0.0001"],
      [0.00001, "1e-05"],
      [1e21, "1e+21"],
      [1.5e300, "1.5e+300"],
      [-2.5e-7, "-2.5e-07"],
    ];
    for (const [d, text] of cases) assert.deepEqual(await causes({ d }), value(text), `string(${d})`);
  });

  test("int(), uint(), double() and bool() of strings parse as Go's strconv", async () => {
    const cases: [string, string, string[]][] = [
      ["int", "42", value("42")],
      ["int", "+42", value("42")],
      ["int", "-42", value("-42")],
      ["int", " 42", conversionError("int")],
      ["int", "", conversionError("int")],
      ["int", "0x10", conversionError("int")],
      ["int", "1_000", conversionError("int")],
      ["int", "x", conversionError("int")],
      ["int", "9223372036854775807", value("9223372036854775807")],
      ["int", "9223372036854775808", conversionError("int")],
      ["uint", "42", value("42")],
      ["uint", "+42", conversionError("uint")],
      ["uint", "-1", conversionError("uint")],
      ["uint", "18446744073709551616", conversionError("uint")],
      ["double", "1.5", value("1.5")],
      ["double", "1e3", value("1000")],
      ["double", ".5", value("0.5")],
      ["double", "5.", value("5")],
      ["double", "inf", value("+Inf")],
      ["double", "-Infinity", value("-Inf")],
      ["double", "NaN", value("NaN")],
      ["double", "0x1p-2", value("0.25")],
      ["double", "1e400", conversionError("double")],
      ["double", " 1", conversionError("double")],
      ["double", "", conversionError("double")],
      ["double", "1_0", value("10")],
      ["bool", "T", value("true")],
      ["bool", "F", value("false")],
      ["bool", "yes", conversionError("bool")],
    ];
    for (const [to, s, expected] of cases)
      assert.deepEqual(await causes({ to, s }), expected, `${to}(${JSON.stringify(s)})`);
  });

  test("overflow and division by zero are cel-go's errors", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ op: "add", i: 1 }, "integer overflow"],
      [{ op: "sub", i: 1 }, "unsigned integer overflow"],
      [{ op: "div", i: 0 }, "division by zero"],
      [{ op: "mod", i: 0 }, "modulus by zero"],
      [{ op: "udiv", i: 0 }, "division by zero"],
      [{ op: "int", f: 1e19 }, "integer overflow"],
      [{ op: "int", f: -1e19 }, "integer overflow"],
      [{ op: "uint", f: -1 }, "unsigned integer overflow"],
      [{ op: "uint", f: 2e19 }, "unsigned integer overflow"],
    ];
    for (const [spec, text] of cases)
      assert.deepEqual(await causes(spec), evaluationError(text), JSON.stringify(spec));
  });

  test("a dry-run create's answer has no resourceVersion (nothing was stored)", async () => {
    const { r } = await post({ op: "add", i: 0 });
    assert.equal(r.status, 201, r.text);
    const meta = (r.body as { metadata: Record<string, unknown> }).metadata;
    assert.equal("resourceVersion" in meta, false, JSON.stringify(meta));
    assert.equal(typeof meta.uid, "string");
  });
});
