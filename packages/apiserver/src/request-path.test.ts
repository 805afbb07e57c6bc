import assert from "node:assert/strict";
import { test } from "node:test";
import { MalformedTargetError, pathSegmentNameErrors, requestTarget } from "./request-path.js";

test("a path is unescaped once and its dot-segments are never resolved", () => {
  const cases: [string, string[]][] = [
    ["/", []],
    ["/api/v1/namespaces/%2e%2e/secrets", ["api", "v1", "namespaces", "..", "secrets"]],
    [
      "/api/v1/namespaces/default/secrets/x/../../configmaps",
      ["api", "v1", "namespaces", "default", "secrets", "x", "..", "..", "configmaps"],
    ],
    ["/a/./b", ["a", ".", "b"]],
    ["/a//b", ["a", "", "b"]],
    ["/a/b/", ["a", "b"]],
    ["/a/b%2fc", ["a", "b", "c"]],
    ["/a/b%25c", ["a", "b%c"]],
    ["//host/x", ["", "host", "x"]],
    ["https://example.com/api/v1?x=1", ["api", "v1"]],
    ["/a/%C3%A9", ["a", "é"]],
  ];
  for (const [target, segments] of cases) assert.deepEqual(requestTarget(target).segments, segments, target);
});

test("the query is read as URLSearchParams reads it; the path keeps what follows no '?'", () => {
  const t = requestTarget("/api/v1/configmaps?fieldManager=a%20b&x=1+2&labelSelector=a%3Db,c!=d");
  assert.deepEqual(
    [...t.query],
    [
      ["fieldManager", "a b"],
      ["x", "1 2"],
      ["labelSelector", "a=b,c!=d"],
    ],
  );
  assert.equal(requestTarget("/a??x").query.get("?x"), "");
  assert.equal(requestTarget("/a#b").pathname, "/a#b");
});

test("an invalid escape or a target that is not a path is refused, as Go's server does", () => {
  for (const target of ["/a/%", "/a/%zz", "/a/%2", "*", "a/b"]) {
    assert.throws(() => requestTarget(target), MalformedTargetError, target);
  }
});

test("path segment names: apimachinery's IsValidPathSegmentName", () => {
  assert.deepEqual(pathSegmentNameErrors(".."), ["may not be '..'"]);
  assert.deepEqual(pathSegmentNameErrors("."), ["may not be '.'"]);
  assert.deepEqual(pathSegmentNameErrors("a/b%"), ["may not contain '/'", "may not contain '%'"]);
  assert.deepEqual(pathSegmentNameErrors("a..b"), []);
});
