// Names replaced by the naming rules in DESIGN.md (acronyms in one case, `new*` factories),
// kept for one release so code written against them still compiles. Each is the new one.
import { parseAPIVersion } from "./gvk.js";

/** @deprecated Use {@link parseAPIVersion}; removed in the next release. */
export const parseApiVersion = parseAPIVersion;
