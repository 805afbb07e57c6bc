// Names replaced by the naming rules in the README's "Project layout" (acronyms in one case,
// `new*` factories), kept for one release so code written against them still compiles. Each is the new one.
import { type APIServerOptions, type RunningAPIServer, startAPIServer } from "./server.js";

/** @deprecated Use {@link APIServerOptions}; removed in the next release. */
export type ApiServerOptions = APIServerOptions;
/** @deprecated Use {@link RunningAPIServer}; removed in the next release. */
export type RunningApiServer = RunningAPIServer;
/** @deprecated Use {@link startAPIServer}; removed in the next release. */
export const startApiServer = startAPIServer;
