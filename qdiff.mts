import { readFileSync } from "node:fs";
const { readQuantity } = await import(process.cwd() + "/packages/controller-runtime/src/api/quantity.ts");
let ok = 0, bad = 0;
for (const line of readFileSync("/tmp/qgo.jsonl", "utf8").split("\n")) {
  if (!line) continue;
  const g = JSON.parse(line);
  const r = readQuantity(g.in);
  let why = "";
  if (g.err) { if (!("error" in r)) why = `go refuses (${g.err}), we read ${r.text}`; else if (r.error !== g.err) why = `errors differ: go ${g.err} / ours ${r.error}`; }
  else if ("error" in r) why = `go reads ${g.str}, we refuse: ${r.error}`;
  else {
    if (r.text !== g.str) why += ` text go ${g.str} ours ${r.text};`;
    // value: unscaled × 10^-scale
    const gv = { n: BigInt(g.unscaled), scale: -Number(g.scale) };
    const q = r.quantity;
    const norm = (v) => { let { n, scale } = v; if (n === 0n) return "0"; while (n % 10n === 0n) { n /= 10n; scale++; } return `${n}e${scale}`; };
    if (norm(gv) !== norm(q)) why += ` value go ${norm(gv)} ours ${norm(q)};`;
    if (g.format !== q.format) why += ` format go ${g.format} ours ${q.format};`;
  }
  if (why) { bad++; if (bad <= 40) console.log(JSON.stringify(g.in), why); } else ok++;
}
console.log({ ok, bad });
