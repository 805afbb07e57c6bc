import assert from "node:assert/strict";
import { test } from "node:test";
import { crdConditions, terminatingCondition } from "./conditions.js";
import { widgetCRD } from "./widget-crd.fixture.js";

const now = new Date("2026-11-21T14:26:29.123Z");

test("a new CRD gets NamesAccepted and Established as recorded", () => {
  const crd = widgetCRD();
  crd.spec.names.listKind = "WidgetList";
  const { conditions, acceptedNames } = crdConditions(crd, now);
  assert.deepEqual(conditions, [
    {
      type: "NamesAccepted",
      status: "True",
      lastTransitionTime: "2026-11-21T14:26:29Z",
      reason: "NoConflicts",
      message: "no conflicts found",
    },
    {
      type: "Established",
      status: "True",
      lastTransitionTime: "2026-11-21T14:26:29Z",
      reason: "InitialNamesAccepted",
      message: "the initial names have been accepted",
    },
  ]);
  assert.deepEqual(acceptedNames, {
    plural: "widgets",
    singular: "widget",
    shortNames: ["wd"],
    kind: "Widget",
    listKind: "WidgetList",
  });
  assert.deepEqual(Object.keys(acceptedNames), ["plural", "singular", "shortNames", "kind", "listKind"]);
});

test("a name another resource of the group uses is not accepted and the CRD is not established", () => {
  const { conditions, acceptedNames } = crdConditions(widgetCRD(), now, [
    { plural: "gadgets", shortNames: ["wd"] },
  ]);
  assert.deepEqual(
    conditions.map((c) => [c.type, c.status, c.reason, c.message]),
    [
      ["NamesAccepted", "False", "ShortNamesConflict", '"wd" is already in use'],
      ["Established", "False", "NotAccepted", "not all names are accepted"],
    ],
  );
  assert.deepEqual(acceptedNames, { plural: "", kind: "" });
  const kindClash = crdConditions(widgetCRD(), now, [{ plural: "others", kind: "Widget" }]);
  assert.equal(kindClash.conditions[0].reason, "KindConflict");
});

test("unchanged conditions keep their transition time; others are kept", () => {
  const crd = widgetCRD();
  crd.status = {
    ...crdConditions(crd, new Date("2020-01-01T00:00:00Z")),
    storedVersions: ["v1"],
  };
  crd.status.conditions?.push(terminatingCondition(now));
  const { conditions } = crdConditions(crd, now);
  assert.deepEqual(
    conditions.map((c) => [c.type, c.lastTransitionTime]),
    [
      ["NamesAccepted", "2020-01-01T00:00:00Z"],
      ["Established", "2020-01-01T00:00:00Z"],
      ["Terminating", "2026-11-21T14:26:29Z"],
    ],
  );
});
