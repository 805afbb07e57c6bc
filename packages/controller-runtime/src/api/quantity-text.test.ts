// Quantities' text as kube-apiserver writes them back, recorded from Go: resource.ParseQuantity
// then Quantity.String() of k8s.io/apimachinery v0.37.2 (the referee's release).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { canonicalQuantityText, readQuantity } from "./quantity.js";

const RECORDED: [string, string][] = [
  ["0", "0"],
  ["0.0", "0"],
  ["-0", "0"],
  ["0.1", "100m"],
  ["100m", "100m"],
  ["1000", "1k"],
  ["1000m", "1"],
  ["1", "1"],
  ["1.0", "1"],
  ["0.5", "500m"],
  ["1.5", "1500m"],
  ["0.25", "250m"],
  ["1500", "1500"],
  ["1500000", "1500k"],
  ["12345", "12345"],
  ["1k", "1k"],
  ["10k", "10k"],
  ["1000k", "1M"],
  ["1M", "1M"],
  ["0.001", "1m"],
  ["0.0001", "100u"],
  ["0.0000000001", "1n"],
  ["1n", "1n"],
  ["1u", "1u"],
  ["1000u", "1m"],
  ["1000000n", "1m"],
  ["1.23456789", "1234567890n"],
  ["-1.5", "-1500m"],
  ["-0.1", "-100m"],
  ["+1", "+1"],
  ["+0.5", "500m"],
  ["1Ki", "1Ki"],
  ["1024", "1024"],
  ["0.5Ki", "512"],
  ["512", "512"],
  ["1.5Gi", "1536Mi"],
  ["1Gi", "1Gi"],
  ["1024Mi", "1Gi"],
  ["1536Mi", "1536Mi"],
  ["2048Ki", "2Mi"],
  ["1023Ki", "1023Ki"],
  ["1000Ki", "1000Ki"],
  ["3Mi", "3Mi"],
  ["0.1Mi", "104857600m"],
  ["1.1Ki", "1126400m"],
  ["-1Ki", "-1Ki"],
  ["1Ei", "1Ei"],
  ["8Ei", "9223372036854775807"],
  ["1e3", "1e3"],
  ["1E3", "1E3"],
  ["1.5e3", "1500"],
  ["1e0", "1e0"],
  ["1e-3", "1e-3"],
  ["2e6", "2e6"],
  ["1e2", "100"],
  ["1e1", "10"],
  ["10e3", "10e3"],
  ["1e18", "1e18"],
  ["1e19", "10e18"],
  ["1e21", "1e21"],
  ["123e-12", "1e-9"],
  ["5e-1", "500e-3"],
  ["1P", "1P"],
  ["1E", "1E"],
  ["10E", "10E"],
  ["1000E", "1"],
  ["1T", "1T"],
  ["0.5T", "500G"],
  ["9223372036854775807", "9223372036854775807"],
  ["9223372036854775808", "9223372036854775808"],
  ["99999999999999999999", "99999999999999999999"],
  ["1.000000001", "1.000000001"],
  ["0.000000001", "1n"],
  ["1.0000000001", "1000000001n"],
  ["10M", "10M"],
  ["100M", "100M"],
  ["1000M", "1G"],
  ["01", "01"],
  ["010", "010"],
  ["00.5", "500m"],
  [".5", "500m"],
  ["5.", "5."],
  ["1.50", "1500m"],
  ["12.3k", "12300"],
  ["0.3m", "300u"],
  ["1.5m", "1500u"],
  ["1.", "1."],
  ["1.G", "1.G"],
  ["-000", "0"],
  ["0Mi", "0"],
  ["1e99999999999", "10e1215752190"],
  ["1e-99999", "1e-9"],
];

test("each text reads back as Go's Quantity writes it", () => {
  for (const [text, go] of RECORDED) assert.equal(canonicalQuantityText(text), go, text);
});

test("text Go refuses is no quantity", () => {
  for (const text of ["", "1.5.5", "abc", "1Kb", "1e", "1e1.5", "--1", "1 ", " 1", "1Mii", "1x", "2e-3Mi"])
    assert.equal(canonicalQuantityText(text), undefined, text);
});

test("exponents far past int64 answer at once (Go's own inf.Dec path takes minutes on them)", () => {
  const t0 = performance.now();
  assert.equal(canonicalQuantityText("1e-2147483648"), "1e-9");
  assert.equal(canonicalQuantityText("1.5e-2147483647Ki"), undefined);
  assert.equal(canonicalQuantityText("1.5e2147483647"), "1.5e2147483647"); // kept: canonical for Go
  assert.equal(canonicalQuantityText("1e-2147483647"), "1e-9");
  assert.ok(performance.now() - t0 < 1000);
});

test("every text of a recorded corpus parses and prints as Go's apimachinery v0.37.2 does: value, format, text, error", () => {
  // Recorded by scripts/record-quantities (Go's ParseQuantity and String() on 745 texts).
  const file = new URL("./quantity.recorded.jsonl", import.meta.url);
  const norm = (n: bigint, scale: number) => {
    if (n === 0n) return "0";
    while (n % 10n === 0n) {
      n /= 10n;
      scale++;
    }
    return `${n}e${scale}`;
  };
  let checked = 0;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line) continue;
    const go = JSON.parse(line) as {
      in: string;
      err?: string;
      str?: string;
      unscaled?: string;
      scale?: string;
      format?: string;
    };
    const ours = readQuantity(go.in);
    const what = JSON.stringify(go.in);
    if (go.err !== undefined) {
      assert.deepEqual(ours, { error: go.err }, what);
    } else {
      assert.ok(
        !("error" in ours),
        `${what}: Go reads ${go.str}, ours: ${"error" in ours ? ours.error : ""}`,
      );
      assert.equal(ours.text, go.str, what);
      assert.equal(ours.quantity.format, go.format, what);
      assert.equal(
        norm(ours.quantity.n, ours.quantity.scale),
        norm(BigInt(go.unscaled!), -Number(go.scale)),
        what,
      );
    }
    checked++;
  }
  assert.ok(checked > 700, `${checked} texts checked`);
});
