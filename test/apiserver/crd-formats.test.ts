// String formats in a custom resource's schema, checked as kube-openapi's strfmt checks them: a
// duration is Go's (`-1m30s`, `0`) or scala-style anywhere in the text (`5 minutes`); a byte
// string is base64 of one group at least. A rule reads the duration strfmt parsed.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { Api, CRDS, customResourceDefinition, startTarget, type Target } from "./harness.js";

/** Formats of strfmt's defaults beyond the usual ones, each checked by govalidator as kube checks it. */
const CHECKED = ["isbn", "isbn10", "isbn13", "creditcard", "ssn", "hexcolor", "rgbcolor"];

let target: Target;
let api: Api;
const group = `formats${Date.now().toString(36)}.example.com`;
const path = `/apis/${group}/v1/namespaces/default/spans`;

before(async () => {
  target = await startTarget();
  api = new Api(target);
  const schema = {
    type: "object",
    properties: {
      spec: {
        type: "object",
        "x-kubernetes-validations": [
          { rule: "!has(self.du) || self.du < duration('24h')", message: "short" },
        ],
        properties: {
          du: { type: "string", format: "duration" },
          bb: { type: "string", format: "byte" },
          ...Object.fromEntries(CHECKED.map((f) => [f, { type: "string", format: f }])),
        },
      },
    },
  };
  const r = await api.post(CRDS, customResourceDefinition(group, { plural: "spans", kind: "Span" }, schema));
  assert.equal(r.status, 201, r.text);
  await eventually("the CRD served", async () => (await api.get(path)).status === 200, { timeoutMs: 30_000 });
});
after(() => target.close());

const NOT_CHECKED =
  "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation";

/** The messages of the causes refusing a Span of `spec` (dry run); [] when it is taken. */
async function refusals(spec: object): Promise<string[]> {
  const r = await api.post(`${path}?dryRun=All`, {
    apiVersion: `${group}/v1`,
    kind: "Span",
    metadata: { name: "s" },
    spec,
  });
  if (r.status === 201) return [];
  return ((r.body.details?.causes ?? []) as { message: string }[]).map((c) => c.message);
}

test("a duration is Go's or scala-style, anywhere in the text", async () => {
  for (const du of ["1h30m", "-1m30s", "0", "1.5h", "5 minutes", "1 hour 30 mins", "about 3 weeks"]) {
    assert.deepEqual(await refusals({ du }), du === "about 3 weeks" ? ["Invalid value: short"] : [], du);
  }
  for (const du of ["abc", "5", "1x", ""]) {
    assert.deepEqual(
      (await refusals({ du })).filter((m) => m.includes("must be of type duration")),
      [`Invalid value: "${du}": spec.du in body must be of type duration: "${du}"`],
      du,
    );
  }
});

test("the duration a rule reads is strfmt's: 1 day is 24h", async () => {
  assert.deepEqual(await refusals({ du: "1 day" }), ["Invalid value: short"]);
  assert.deepEqual(await refusals({ du: "23 hours 59 min" }), []);
});

test("a byte string is base64 of one group at least: the empty string is none", async () => {
  for (const bb of ["aGVsbG8=", "AA==", "abcd"]) assert.deepEqual(await refusals({ bb }), [], bb);
  for (const bb of ["", "A", "aGVsbG8"]) {
    // The rules are not run on an object its schema refuses.
    assert.deepEqual(
      await refusals({ bb }),
      [
        `Invalid value: "${bb}": spec.bb in body must be of type byte: "${bb}"`,
        `Invalid value: null: ${NOT_CHECKED}`,
      ],
      bb,
    );
  }
});

test("isbn, creditcard, ssn, hexcolor and rgbcolor are checked as govalidator checks them", async () => {
  const cases: [format: string, good: string[], bad: string[]][] = [
    ["isbn10", ["0306406152", "0-306-40615-2", "080442957X"], ["0306406153", "030640615", "03064061521"]],
    ["isbn13", ["9780306406157", "978-0-306-40615-7"], ["9780306406158", "978030640615"]],
    ["isbn", ["0306406152", "9780306406157"], ["123", "9780306406158"]],
    ["creditcard", ["4111111111111111", "4111-1111-1111-1111"], ["4111111111111112", "1234"]],
    ["ssn", ["123-45-6789", "123 45 6789"], ["123456789", "123-45-678"]],
    ["hexcolor", ["#fff", "A0B1C2", "#a0b1c2"], ["#ffff", "ggg"]],
    ["rgbcolor", ["rgb(0,0,0)", "rgb( 255 , 10 , 0 )"], ["rgb(256,0,0)", "rgb(01,0,0)", "rgb(0,0)"]],
  ];
  for (const [format, good, bad] of cases) {
    for (const v of good) assert.deepEqual(await refusals({ [format]: v }), [], `${format} ${v}`);
    for (const v of bad) {
      assert.deepEqual(
        (await refusals({ [format]: v }))[0],
        `Invalid value: "${v}": spec.${format} in body must be of type ${format}: "${v}"`,
        `${format} ${v}`,
      );
    }
  }
});
