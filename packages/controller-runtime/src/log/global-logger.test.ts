import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { test } from "node:test";
import { log, loggerSet, newLogger, setLogger } from "./index.js";

test("loggers derived from log before setLogger write through the logger set later", () => {
  const early = log.withName("setup").withValues({ component: "x" });
  early.info("dropped: no logger yet");
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  assert.equal(loggerSet(), false);
  setLogger(newLogger({ destination, level: 1 }));
  assert.equal(loggerSet(), true);
  early.info("hello", { n: 1 });
  early.v(1).info("debug line");
  early.v(2).info("too verbose");
  assert.equal(lines.length, 2);
  const first = JSON.parse(lines[0]);
  assert.equal(first.msg, "hello");
  assert.equal(first.logger, "setup");
  assert.equal(first.component, "x");
  assert.equal(first.n, 1);
  assert.equal(early.v(2).enabled(), false);
});
