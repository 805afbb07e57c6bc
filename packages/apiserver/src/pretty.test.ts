import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { test } from "node:test";
import { indentJson, isPrettyPrint } from "./pretty.js";

test("indentJson writes what Go's json.Indent writes, copying strings and numbers as they are", () => {
  const compact = '{"a":[],"b":{},"c":[1,{"d":"x,y:{}[]\\"\\\\"}],"n":12345678901234567890,"e":null}';
  assert.equal(
    indentJson(compact),
    [
      "{",
      '  "a": [],',
      '  "b": {},',
      '  "c": [',
      "    1,",
      "    {",
      '      "d": "x,y:{}[]\\"\\\\"',
      "    }",
      "  ],",
      '  "n": 12345678901234567890,',
      '  "e": null',
      "}",
    ].join("\n"),
  );
  assert.equal(
    indentJson(indentJson(compact)),
    indentJson(compact),
    "indenting indented JSON changes nothing",
  );
});

test("isPrettyPrint follows kube: the pretty parameter as Go's ParseBool reads it, else the user agent", () => {
  const req = (url: string, agent = "kubectl/v1.32") =>
    ({ url, headers: { "user-agent": agent } }) as unknown as IncomingMessage;
  assert.equal(isPrettyPrint(req("/api?pretty=true")), true);
  assert.equal(isPrettyPrint(req("/api?pretty=T")), true);
  assert.equal(isPrettyPrint(req("/api?pretty=yes")), false);
  assert.equal(isPrettyPrint(req("/api")), false);
  assert.equal(isPrettyPrint(req("/api", "curl/8.5.0")), true);
  assert.equal(isPrettyPrint(req("/api", "Wget/1.21")), true);
  assert.equal(isPrettyPrint(req("/api", "Mozilla/5.0 (X11)")), true);
  assert.equal(isPrettyPrint(req("/api?pretty=false", "curl/8.5.0")), false);
  assert.equal(
    isPrettyPrint(req("/api?pretty=", "curl/8.5.0")),
    true,
    "an empty value leaves it to the agent",
  );
  assert.equal(isPrettyPrint(undefined), false);
});
