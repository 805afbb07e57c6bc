// Accept headers as goautoneg reads them for kube-openapi: media ranges by preference (higher
// `q` first, then the more specific), those with q=0 left out.

/** The media ranges of an `Accept` header, most preferred first; `*\/*` when absent. */
export function acceptedTypes(accept: string | undefined): string[] {
  if (accept === undefined || accept.trim() === "") return ["*/*"];
  const ranges: { type: string; q: number; specificity: number; order: number }[] = [];
  accept.split(",").forEach((entry, order) => {
    const [type, ...params] = entry.split(";").map((s) => s.trim());
    if (!type) return;
    let q = 1;
    for (const p of params) {
      const [k, v] = p.split("=").map((s) => s.trim());
      if (k === "q") q = Number(v);
    }
    if (!(q > 0)) return;
    const lower = type.toLowerCase();
    const specificity = lower === "*/*" ? 0 : lower.endsWith("/*") ? 1 : 2;
    ranges.push({ type: lower, q, specificity, order });
  });
  ranges.sort((a, b) => b.q - a.q || b.specificity - a.specificity || a.order - b.order);
  return ranges.map((r) => r.type);
}
