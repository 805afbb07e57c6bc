import assert from "node:assert/strict";
import { test } from "node:test";
import { PatchError } from "./errors.js";
import { applyJSONPatch, escapePointerToken, parsePointer } from "./json-patch.js";

// RFC 6902 appendix A.
const vectors: Array<[string, unknown, unknown[], unknown]> = [
  [
    "A.1 add an object member",
    { foo: "bar" },
    [{ op: "add", path: "/baz", value: "qux" }],
    { baz: "qux", foo: "bar" },
  ],
  [
    "A.2 add an array element",
    { foo: ["bar", "baz"] },
    [{ op: "add", path: "/foo/1", value: "qux" }],
    { foo: ["bar", "qux", "baz"] },
  ],
  [
    "A.3 remove an object member",
    { baz: "qux", foo: "bar" },
    [{ op: "remove", path: "/baz" }],
    { foo: "bar" },
  ],
  [
    "A.4 remove an array element",
    { foo: ["bar", "qux", "baz"] },
    [{ op: "remove", path: "/foo/1" }],
    { foo: ["bar", "baz"] },
  ],
  [
    "A.5 replace a value",
    { baz: "qux", foo: "bar" },
    [{ op: "replace", path: "/baz", value: "boo" }],
    { baz: "boo", foo: "bar" },
  ],
  [
    "A.6 move a value",
    { foo: { bar: "baz", waldo: "fred" }, qux: { corge: "grault" } },
    [{ op: "move", from: "/foo/waldo", path: "/qux/thud" }],
    { foo: { bar: "baz" }, qux: { corge: "grault", thud: "fred" } },
  ],
  [
    "A.7 move an array element",
    { foo: ["all", "grass", "cows", "eat"] },
    [{ op: "move", from: "/foo/1", path: "/foo/3" }],
    { foo: ["all", "cows", "eat", "grass"] },
  ],
  [
    "A.8 test a value: success",
    { baz: "qux", foo: ["a", 2, "c"] },
    [
      { op: "test", path: "/baz", value: "qux" },
      { op: "test", path: "/foo/1", value: 2 },
    ],
    { baz: "qux", foo: ["a", 2, "c"] },
  ],
  [
    "A.10 add a nested member object",
    { foo: "bar" },
    [{ op: "add", path: "/child", value: { grandchild: {} } }],
    { foo: "bar", child: { grandchild: {} } },
  ],
  ["A.12 add to a nonexistent target fails (see below)", { foo: "bar" }, [], { foo: "bar" }],
  [
    "A.14 ~ escape ordering",
    { "/": 9, "~1": 10 },
    [{ op: "test", path: "/~01", value: 10 }],
    { "/": 9, "~1": 10 },
  ],
  [
    "A.16 add an array value",
    { foo: ["bar"] },
    [{ op: "add", path: "/foo/-", value: ["abc", "def"] }],
    { foo: ["bar", ["abc", "def"]] },
  ],
  ["replace the whole document", { a: 1 }, [{ op: "replace", path: "", value: { b: 2 } }], { b: 2 }],
  // kube's json-patch (v4): a missing member of an object is replaced as if it were there.
  ["replace a missing member sets it", { a: 1 }, [{ op: "replace", path: "/b", value: 1 }], { a: 1, b: 1 }],
  // evanphx/json-patch v4's quirks, which kube-apiserver answers with.
  [
    "an index with a leading zero or a sign is strconv.Atoi's",
    { a: [1, 2] },
    [
      { op: "add", path: "/a/01", value: 9 },
      { op: "add", path: "/a/+0", value: 8 },
    ],
    { a: [8, 1, 9, 2] },
  ],
  [
    "a negative index counts from the end",
    { a: [1, 2, 3] },
    [
      { op: "remove", path: "/a/-1" },
      { op: "replace", path: "/a/-2", value: 0 },
      { op: "add", path: "/a/-1", value: 4 },
    ],
    { a: [0, 2, 4] },
  ],
  [
    "an operation without a value uses null",
    { a: 1 },
    [
      { op: "add", path: "/b" },
      { op: "replace", path: "/a" },
    ],
    { a: null, b: null },
  ],
  [
    "a copy of a missing member copies null",
    { a: {} },
    [{ op: "copy", from: "/a/x", path: "/b" }],
    { a: {}, b: null },
  ],
  [
    "a path's first segment is skipped, whatever it holds",
    { a: { x: 1 } },
    [
      { op: "add", path: "a/y", value: 2 },
      { op: "add", path: "q/a/z", value: 3 },
    ],
    { a: { x: 1, z: 3 }, y: 2 },
  ],
  ["a test without a value passes on a missing member", { a: 1 }, [{ op: "test", path: "/b" }], { a: 1 }],
  ["a test of the whole document", { a: 1 }, [{ op: "test", path: "", value: { a: 1 } }], { a: 1 }],
  [
    "copy is deep",
    { a: { b: [1] } },
    [
      { op: "copy", from: "/a", path: "/c" },
      { op: "add", path: "/c/b/-", value: 2 },
    ],
    { a: { b: [1] }, c: { b: [1, 2] } },
  ],
  [
    "test null against a missing member passes (as kube's library)",
    { a: 1 },
    [{ op: "test", path: "/b", value: null }],
    { a: 1 },
  ],
  ["slash in a key", { "a/b": 1 }, [{ op: "replace", path: "/a~1b", value: 2 }], { "a/b": 2 }],
];

for (const [name, doc, ops, want] of vectors) {
  test(`RFC 6902 ${name}`, () => {
    const before = JSON.stringify(doc);
    assert.deepEqual(applyJSONPatch(doc, ops), want);
    assert.equal(JSON.stringify(doc), before, "input unchanged");
  });
}

const failures: Array<[string, unknown, unknown[], RegExp]> = [
  [
    "A.9 test a value: error",
    { baz: "qux" },
    [{ op: "test", path: "/baz", value: "bar" }],
    /^testing value \/baz failed/,
  ],
  [
    "A.12 add to a nonexistent target",
    { foo: "bar" },
    [{ op: "add", path: "/baz/bat", value: "qux" }],
    /doc is missing path: "\/baz\/bat"/,
  ],
  [
    "A.15 comparing strings and numbers",
    { "/": 9, "~1": 10 },
    [{ op: "test", path: "/~01", value: "10" }],
    /testing value/,
  ],
  [
    "remove a missing member",
    { a: 1 },
    [{ op: "remove", path: "/b" }],
    /Unable to remove nonexistent key: b/,
  ],
  [
    "replace a missing array element",
    { a: [1] },
    [{ op: "replace", path: "/a/1", value: 2 }],
    /doc is missing key: \/a\/1: missing value/,
  ],
  [
    "replace under a missing member",
    { a: 1 },
    [{ op: "replace", path: "/b/c", value: 1 }],
    /doc is missing path: \/b\/c: missing value/,
  ],
  ["index past the end", { a: [1] }, [{ op: "add", path: "/a/3", value: 1 }], /invalid index/],
  ["a negative index past the start", { a: [1] }, [{ op: "add", path: "/a/-3", value: 1 }], /invalid index/],
  ["an index that is no number", { a: [1] }, [{ op: "remove", path: "/a/x" }], /invalid syntax/],
  [
    "move into its own child",
    { a: { b: 1 } },
    [{ op: "move", from: "/a", path: "/a/b/c" }],
    /missing destination path/,
  ],
  ["unknown op", { a: 1 }, [{ op: "frob", path: "/a" }], /Unexpected kind: frob/],
  [
    "a path without a slash names nothing",
    { a: 1 },
    [{ op: "remove", path: "a" }],
    /doc is missing path: "a"/,
  ],
  ["add at the root", { a: 1 }, [{ op: "add", path: "", value: [1] }], /doc is missing path: ""/],
  [
    "replace the root with a scalar",
    { a: 1 },
    [{ op: "replace", path: "", value: 1 }],
    /must be object or array/,
  ],
  [
    "a test with a value of a missing member",
    { a: 1 },
    [{ op: "test", path: "/b", value: 1 }],
    /testing value \/b failed/,
  ],
  ["a test without a value of a member", { a: 1 }, [{ op: "test", path: "/a" }], /testing value \/a failed/],
  [
    "move from a missing path",
    { a: 1 },
    [{ op: "move", from: "/x", path: "/b" }],
    /Unable to remove nonexistent key: x/,
  ],
];

for (const [name, doc, ops, message] of failures) {
  test(`a failing patch is 422 Invalid: ${name}`, () => {
    const before = JSON.stringify(doc);
    assert.throws(
      () => applyJSONPatch(doc, ops),
      (e: unknown) => {
        assert.ok(e instanceof PatchError);
        assert.equal(e.reason, "Invalid");
        assert.equal(e.code, 422);
        assert.match(e.message, message);
        assert.equal(e.statusMessage, "the server rejected our request due to an error in our request");
        return true;
      },
    );
    assert.equal(JSON.stringify(doc), before, "input unchanged after a failure");
  });
}

test("a patch that is not a list of operations is 400 BadRequest", () => {
  for (const ops of [{ op: "add" }, "x", [1], [[]]]) {
    assert.throws(() => applyJSONPatch({}, ops), { name: "PatchError", reason: "BadRequest", code: 400 });
  }
});

test("pointers unescape ~1 then ~0 and escape back", () => {
  assert.deepEqual(parsePointer(""), []);
  assert.deepEqual(parsePointer("/"), [""]);
  assert.deepEqual(parsePointer("/a~1b/c~0d/~01"), ["a/b", "c~d", "~1"]);
  assert.equal(escapePointerToken("a/~b"), "a~1~0b");
});

test("__proto__ keys stay data", () => {
  const out = applyJSONPatch({}, [{ op: "add", path: "/__proto__", value: { polluted: true } }]) as Record<
    string,
    unknown
  >;
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.getPrototypeOf(out), Object.prototype);
  assert.deepEqual(Object.keys(out), ["__proto__"]);
});

test("copies are bounded by maxCopyBytes: a patch that doubles a document cannot ask for terabytes", () => {
  const ops = Array.from({ length: 60 }, (_, i) => ({ op: "copy", from: "/d", path: `/d/c${i}` }));
  assert.throws(
    () => applyJSONPatch({ d: { a: "x".repeat(100) } }, ops, { maxCopyBytes: 1_000_000 }),
    /accumulated size increase of copy is \d+, exceeding the limit 1000000/,
  );
  // Under the bound, copies work as without it.
  assert.deepEqual(applyJSONPatch({ d: { a: 1 } }, ops.slice(0, 1), { maxCopyBytes: 100 }), {
    d: { a: 1, c0: { a: 1 } },
  });
});
