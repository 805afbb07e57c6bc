// Names replaced by the naming rules in the README's "Project layout" (acronyms in one case,
// `new*` factories), kept for one release so code written against them still compiles. Each is the new one.
import type { RESTClientMetrics } from "./rest-client-metrics.js";

/** @deprecated Use {@link RESTClientMetrics}; removed in the next release. */
export type RestClientMetrics = RESTClientMetrics;
