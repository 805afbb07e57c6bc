import assert from "node:assert/strict";
import { test } from "node:test";
import { requestTarget } from "./router.js";

function viaUrl(target: string): [string, [string, string][]] | "throws" {
  try {
    const u = new URL(target, "https://apiserver");
    return [u.pathname, [...u.searchParams]];
  } catch {
    return "throws";
  }
}

function viaTarget(target: string): [string, [string, string][]] | "throws" {
  try {
    const t = requestTarget(target);
    return [t.pathname, [...t.query]];
  } catch {
    return "throws";
  }
}

test("a request target's path and query are read as new URL() reads them", () => {
  for (const t of [
    "/",
    "/api/v1/namespaces/ns/configmaps?fieldManager=a%20b&x=1+2",
    "/apis/apps/v1/watch/deployments?watch=1&labelSelector=a%3Db,c!=d",
    "//host/x",
    "/a/../b",
    "/a/./b",
    "/a/..",
    "/a/.?x",
    "/a/.b",
    "/a%2e%2e/b",
    "/a\\b",
    "/a?b#c",
    "/a??x",
    "/a?x=é",
    "/a?x='\"<>",
    "/api/v1/namespaces/x/configmaps/a:b@c",
  ]) {
    assert.deepEqual(viaTarget(t), viaUrl(t), t);
  }
});

test("random targets: the hand split and URL agree", () => {
  const chars = "/a.?=&%2e+#\\ :@'\"é-_~";
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let i = 0; i < 20_000; i++) {
    let t = "/";
    const len = rand(12);
    for (let j = 0; j < len; j++) t += chars[rand(chars.length)];
    assert.deepEqual(viaTarget(t), viaUrl(t), JSON.stringify(t));
  }
});
