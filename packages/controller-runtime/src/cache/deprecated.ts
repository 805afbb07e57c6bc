// Names replaced by the naming rules in the README's "Project layout" (acronyms in one case,
// `new*` factories), kept for one release so code written against them still compiles. Each is the new one.
import { newCache } from "./cache.js";

/** @deprecated Use {@link newCache}; removed in the next release. */
export const createCache = newCache;
