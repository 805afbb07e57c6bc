import assert from "node:assert/strict";
import { test } from "node:test";
import { duplicateFields } from "./write.js";

// The scan as first written, character by character: the fast one must answer the same.
function reference(text: string): string[] {
  if (!text.includes('"')) return [];
  const out: string[] = [];
  const stack: { keys: Set<string>; path: string; pendingKey: string | undefined; isArray: boolean }[] = [];
  let i = 0;
  let lastString = "";
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      try {
        lastString = JSON.parse(text.slice(i, j + 1)) as string;
      } catch {
        return out;
      }
      i = j + 1;
      continue;
    }
    const top = stack[stack.length - 1];
    if (c === "{" || c === "[") {
      const child = top && !top.isArray && top.pendingKey !== undefined ? top.pendingKey : "";
      const path = top ? (child ? (top.path ? `${top.path}.${child}` : child) : top.path) : "";
      stack.push({ keys: new Set(), path, pendingKey: undefined, isArray: c === "[" });
    } else if (c === "}" || c === "]") stack.pop();
    else if (c === ":" && top && !top.isArray) {
      if (top.keys.has(lastString)) out.push(top.path ? `${top.path}.${lastString}` : lastString);
      top.keys.add(lastString);
      top.pendingKey = lastString;
    }
    i++;
  }
  return out;
}

test("duplicate keys are named by their path, at any depth and inside lists", () => {
  const text =
    '{"a":1,"a":2,"spec":{"x":{"y":1,"y":2},"list":[{"n":1,"n":2}]},"metadata":{"name":"q","name":"r"}}';
  assert.deepEqual(duplicateFields(text), ["a", "spec.x.y", "spec.list.n", "metadata.name"]);
  assert.deepEqual(duplicateFields(text), reference(text));
});

test("escaped quotes, backslashes and escapes in keys are read as JSON reads them", () => {
  for (const text of [
    '{"a\\"b":1,"a\\"b":2}',
    '{"x":"ends with \\\\","x":"y"}',
    '{"x":"\\\\\\"","y":1,"y":2}',
    '{"\\u0061":1,"a":2}',
    '{"a":"tab\\there","b":"\\n","b":1}',
    '{"a":"unterminated',
    '{"a":"bad \\x escape","a":1}',
    '{"a":"raw \u0001 control","a":1}',
    "kind: ConfigMap\nmetadata:\n  name: x\n  name: y\n",
    'a: "1"\na: "2"\n',
    "",
    "{}",
  ]) {
    assert.deepEqual(duplicateFields(text), reference(text), text);
  }
});

test("random documents: the fast scan and the character scan agree", () => {
  let seed = 42;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const pieces = [
    '"a"',
    '"b"',
    '"a\\"',
    "\\\\",
    "\\",
    ":",
    ",",
    "{",
    "}",
    "[",
    "]",
    "1",
    '"',
    " ",
    "\n",
    '"x\\u0041"',
  ];
  for (let t = 0; t < 3000; t++) {
    let text = "{";
    const len = rand(40);
    for (let i = 0; i < len; i++) text += pieces[rand(pieces.length)];
    assert.deepEqual(duplicateFields(text), reference(text), JSON.stringify(text));
  }
});
