// Numbers as kube-openapi's validator checks them, in a CRD's defaults and in custom resources:
// each of multipleOf, minimum and maximum must first fit the property's type and format (a
// fraction on an integer, 3e9 on an int32), else kube refuses with an error of no field and checks
// the keyword as a plain float; a keyword that fits is applied to a whole-number value as an int64,
// truncated (so `multipleOf: 0.5` is "factor ... must be positive: 0" even on a `number`). A CRD
// with such keywords and no default is accepted; its default, or a resource, is refused. Each
// expectation was recorded from kube-apiserver 1.37.2.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { eventually } from "controller-runtime/envtest";
import { Api, CRDS, customResourceDefinition, startTarget, type Target } from "./harness.js";

let target: Target;
let api: Api;
const run = Date.now().toString(36);
const group = `numkw${run}.example.com`;
const created: string[] = [];

before(async () => {
  target = await startTarget();
  api = new Api(target);
});
after(async () => {
  for (const path of created) await api.delete(path);
  await target.close();
});

type Cause = [reason: string, field: string, message: string];

let serial = 0;
/** Posts a CRD whose `spec.f` has schema `f`: its status, causes and the names to reach it. */
async function postCrd(f: object) {
  const plural = `numbers${serial++}`;
  const kind = `Number${serial}`;
  const body = customResourceDefinition(
    group,
    { plural, kind },
    {
      type: "object",
      properties: { spec: { type: "object", properties: { f } } },
    },
  );
  const r = await api.post(CRDS, body);
  if (r.status === 201) created.push(`${CRDS}/${body.metadata.name}`);
  const causes: Cause[] = (r.body?.details?.causes ?? []).map(
    (c: { reason: string; field: string; message: string }) => [c.reason, c.field, c.message],
  );
  return { status: r.status, causes, plural, kind };
}

const DEFAULT = "spec.validation.openAPIV3Schema.properties[spec].properties[f].default";
/** kube's error of no field, for a keyword or value that does not fit the type and format. */
const unfit = (field: string, text: string): Cause => [
  "FieldValueInvalid",
  field,
  `Invalid value: "": ${text}`,
];
const invalid = (field: string, text: string): Cause => [
  "FieldValueInvalid",
  field,
  `Invalid value: ${text}`,
];

describe("a CRD's numeric keywords checked only through its defaults, as kube does", () => {
  test("keywords that do not fit an integer property are accepted when nothing is checked against them", async () => {
    for (const f of [
      { type: "integer", format: "int32", maximum: 1.5 },
      { type: "integer", format: "int32", minimum: 0.5, multipleOf: 0.5 },
      { type: "integer", format: "int32", maximum: 3000000000 },
      { type: "integer", maximum: 1.5, exclusiveMaximum: true },
      { type: "integer", multipleOf: 0 },
      { type: "number", format: "int32", default: 1.5 },
    ]) {
      assert.equal((await postCrd(f)).status, 201, JSON.stringify(f));
    }
  });

  const refused: [object, Cause[]][] = [
    [
      { type: "integer", format: "int32", default: 3, maximum: 3.5 },
      [unfit(DEFAULT, "Maximum boundary value must be of type integer with format int32 in ")],
    ],
    [
      { type: "integer", default: 3, multipleOf: 0.5 },
      [unfit(DEFAULT, "MultipleOf value must be of type integer (default format) in ")],
    ],
    [
      { type: "integer", default: 3, multipleOf: 2.5 },
      [
        unfit(DEFAULT, "MultipleOf value must be of type integer (default format) in "),
        invalid(DEFAULT, "3:  in body should be a multiple of 2.5"),
      ],
    ],
    [
      { type: "integer", default: 3, minimum: 3.5 },
      [
        unfit(DEFAULT, "Minimum boundary value must be of type integer (default format) in "),
        invalid(DEFAULT, "3:  in body should be greater than or equal to 3.5"),
      ],
    ],
    [
      { type: "integer", default: 3, maximum: 2.5 },
      [
        unfit(DEFAULT, "Maximum boundary value must be of type integer (default format) in "),
        invalid(DEFAULT, "3:  in body should be less than or equal to 2.5"),
      ],
    ],
    [
      { type: "number", default: 3, multipleOf: 0.5 },
      [invalid(DEFAULT, "0: factor MultipleOf declared for  must be positive: 0")],
    ],
    [
      { type: "integer", default: 1.5 },
      [
        [
          "FieldValueTypeInvalid",
          DEFAULT,
          'Invalid value: "number":  in body must be of type integer: "number"',
        ],
        unfit(DEFAULT, "Checked value must be of type integer (default format) in "),
      ],
    ],
    [
      { type: "integer", format: "int32", default: 3000000000 },
      [unfit(DEFAULT, "Checked value must be of type integer with format int32 in ")],
    ],
    [
      { type: "integer", format: "int64", default: 1e20 },
      [
        [
          "FieldValueTypeInvalid",
          DEFAULT,
          'Invalid value: "float64":  in body must be of type int64: "float64"',
        ],
        unfit(DEFAULT, "Checked value must be of type integer with format int64 in "),
      ],
    ],
  ];
  for (const [f, causes] of refused) {
    test(`a default under ${JSON.stringify(f)} is refused`, async () => {
      const r = await postCrd(f);
      assert.equal(r.status, 422);
      assert.deepEqual(r.causes, causes);
    });
  }
});

describe("custom resources' numbers checked as kube-openapi checks them", () => {
  const cases: [object, [unknown, Cause[]][]][] = [
    [
      { type: "integer", maximum: 3.5 },
      [
        [3, [unfit("<nil>", "Maximum boundary value must be of type integer (default format) in spec.f")]],
        [
          4,
          [
            unfit("<nil>", "Maximum boundary value must be of type integer (default format) in spec.f"),
            invalid("spec.f", "4: spec.f in body should be less than or equal to 3.5"),
          ],
        ],
      ],
    ],
    [
      { type: "number", maximum: 3.5, exclusiveMaximum: true, minimum: 1.5 },
      [
        [3, [invalid("spec.f", "3: spec.f in body should be less than 3")]],
        [1, []],
        [0, [invalid("spec.f", "0: spec.f in body should be greater than or equal to 1")]],
        [1.2, [invalid("spec.f", "1.2: spec.f in body should be greater than or equal to 1.5")]],
        [3.2, []],
      ],
    ],
    [
      { type: "number", multipleOf: 0.5, maximum: 2.5 },
      [
        [
          3,
          [
            invalid("spec.f", "0: factor MultipleOf declared for spec.f must be positive: 0"),
            invalid("spec.f", "3: spec.f in body should be less than or equal to 2"),
          ],
        ],
        [1.5, []],
      ],
    ],
    [
      { type: "integer", format: "int32" },
      [
        [3000000000, [unfit("<nil>", "Checked value must be of type integer with format int32 in spec.f")]],
        [
          1.5,
          [
            [
              "FieldValueTypeInvalid",
              "spec.f",
              'Invalid value: "float64": spec.f in body must be of type int32: "float64"',
            ],
            unfit("<nil>", "Checked value must be of type integer with format int32 in spec.f"),
          ],
        ],
      ],
    ],
    [
      { type: "integer" },
      [1e20, 1.5].map((v): [number, Cause[]] => [
        v,
        [
          [
            "FieldValueTypeInvalid",
            "spec.f",
            'Invalid value: "number": spec.f in body must be of type integer: "number"',
          ],
          unfit("<nil>", "Checked value must be of type integer (default format) in spec.f"),
        ],
      ]),
    ],
    [
      { type: "number", format: "float" },
      [[1e39, [unfit("<nil>", "Checked value must be of type number with format float in spec.f")]]],
    ],
    [
      // Floats print as Go's %v prints them; a bound cast to int64 prints as an integer.
      { type: "number", maximum: 1000000, minimum: 0.00001 },
      [
        [
          2000000.5,
          [invalid("spec.f", "2.0000005e+06: spec.f in body should be less than or equal to 1e+06")],
        ],
        [2000000, [invalid("spec.f", "2000000: spec.f in body should be less than or equal to 1000000")]],
        [0.000001, [invalid("spec.f", "1e-06: spec.f in body should be greater than or equal to 1e-05")]],
      ],
    ],
    [
      // enum runs after a failed type check too, each value converted to the type of the
      // allowed one as Go's reflect converts: a float to an int64 truncates, an int to a string
      // is the character of that code point.
      { type: "string", enum: ["a", "b"] },
      [
        [
          5,
          [
            [
              "FieldValueTypeInvalid",
              "spec.f",
              'Invalid value: "integer": spec.f in body must be of type string: "integer"',
            ],
            ["FieldValueNotSupported", "spec.f", 'Unsupported value: 5: supported values: "a", "b"'],
          ],
        ],
        [
          97,
          [
            [
              "FieldValueTypeInvalid",
              "spec.f",
              'Invalid value: "integer": spec.f in body must be of type string: "integer"',
            ],
          ],
        ],
      ],
    ],
    [
      { type: "integer", enum: [1, 2] },
      [
        [
          1e20,
          [
            [
              "FieldValueTypeInvalid",
              "spec.f",
              'Invalid value: "number": spec.f in body must be of type integer: "number"',
            ],
            unfit("<nil>", "Checked value must be of type integer (default format) in spec.f"),
            ["FieldValueNotSupported", "spec.f", 'Unsupported value: 1e+20: supported values: "1", "2"'],
          ],
        ],
        [
          "x",
          [
            [
              "FieldValueTypeInvalid",
              "spec.f",
              'Invalid value: "string": spec.f in body must be of type integer: "string"',
            ],
            ["FieldValueNotSupported", "spec.f", 'Unsupported value: "x": supported values: "1", "2"'],
          ],
        ],
        [2, []],
      ],
    ],
    [
      { type: "number", enum: [1, 2.5] },
      [
        [1.5, []],
        [2.5, []],
        [2, [["FieldValueNotSupported", "spec.f", 'Unsupported value: 2: supported values: "1", "2.5"']]],
      ],
    ],
    [
      // A fractional factor multiplies by its inverse, and the quotient counts as whole within a
      // relative 1e-9 of the nearest whole number: 100 * 0.29 is 28.999999999999996, accepted.
      { type: "number", multipleOf: 0.01 },
      [
        [0.07, []],
        [0.29, []],
        [0.295, [invalid("spec.f", "0.295: spec.f in body should be a multiple of 0.01")]],
      ],
    ],
    [
      // So close to a whole number a float passes the type check for an integer, not the range check.
      { type: "integer", format: "int32" },
      [
        [3.0000000001, [unfit("<nil>", "Checked value must be of type integer with format int32 in spec.f")]],
        [
          1e-10,
          [
            [
              "FieldValueTypeInvalid",
              "spec.f",
              'Invalid value: "float64": spec.f in body must be of type int32: "float64"',
            ],
            unfit("<nil>", "Checked value must be of type integer with format int32 in spec.f"),
          ],
        ],
      ],
    ],
    [
      { type: "string", format: "date-time" },
      [
        [
          3,
          [
            [
              "FieldValueTypeInvalid",
              "spec.f",
              'Invalid value: "int64": spec.f in body must be of type date-time: "int64"',
            ],
          ],
        ],
      ],
    ],
    [
      { type: "integer", minimum: 4, maximum: 2, multipleOf: 5 },
      [
        [
          3,
          [
            invalid("spec.f", "3: spec.f in body should be a multiple of 5"),
            invalid("spec.f", "3: spec.f in body should be greater than or equal to 4"),
            invalid("spec.f", "3: spec.f in body should be less than or equal to 2"),
          ],
        ],
      ],
    ],
  ];
  for (const [f, values] of cases) {
    test(`values of ${JSON.stringify(f)}`, async () => {
      const crd = await postCrd(f);
      assert.equal(crd.status, 201, JSON.stringify(crd.causes));
      const ns = await api.namespace();
      const path = `/apis/${group}/v1/namespaces/${ns}/${crd.plural}`;
      let n = 0;
      const post = (v: unknown) =>
        api.post(path, {
          apiVersion: `${group}/v1`,
          kind: crd.kind,
          metadata: { name: `r${n++}` },
          spec: { f: v },
        });
      // The resource is served once the CRD is established.
      await eventually(`${crd.plural} served`, async () => (await post(values[0][0])).status !== 404, {
        timeoutMs: 60_000,
        intervalMs: 200,
      });
      for (const [v, causes] of values) {
        const r = await post(v);
        const got: Cause[] = (r.body?.details?.causes ?? []).map(
          (c: { reason: string; field: string; message: string }) => [c.reason, c.field, c.message],
        );
        assert.deepEqual([r.status, got], [causes.length ? 422 : 201, causes], `spec.f: ${v}`);
      }
    });
  }
});
