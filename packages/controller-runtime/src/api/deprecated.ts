// Names replaced by the naming rules in the README's "Project layout" (acronyms in one case,
// `new*` factories), kept for one release so code written against them still compiles. Each is the new one.
import { parseAPIVersion } from "./gvk.js";

/** @deprecated Use {@link parseAPIVersion}; removed in the next release. */
export const parseApiVersion = parseAPIVersion;
