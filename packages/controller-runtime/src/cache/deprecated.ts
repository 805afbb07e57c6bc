// Names replaced by the naming rules in DESIGN.md (acronyms in one case, `new*` factories),
// kept for one release so code written against them still compiles. Each is the new one.
import { newCache } from "./cache.js";

/** @deprecated Use {@link newCache}; removed in the next release. */
export const createCache = newCache;
