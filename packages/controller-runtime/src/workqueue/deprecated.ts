// Names replaced by the naming rules in the README's "Project layout" (acronyms in one case,
// `new*` factories), kept for one release so code written against them still compiles. Each is the new one.
import { newFakeClock } from "./fake-clock.js";

/** @deprecated Use {@link newFakeClock}; removed in the next release. */
export const createFakeClock = newFakeClock;
