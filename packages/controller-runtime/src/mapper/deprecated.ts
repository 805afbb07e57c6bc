// Names replaced by the naming rules in the README's "Project layout" (acronyms in one case,
// `new*` factories), kept for one release so code written against them still compiles. Each is the new one.
import { type RESTMapperOptions, newRESTMapper } from "./rest-mapper.js";

/** @deprecated Use {@link RESTMapperOptions}; removed in the next release. */
export type RestMapperOptions = RESTMapperOptions;
/** @deprecated Use {@link newRESTMapper}; removed in the next release. */
export const createRestMapper = newRESTMapper;
