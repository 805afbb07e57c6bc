// conversion: custom resources between the served versions of their CRD (strategy None, or a
// conversion webhook called with ConversionReviews).
export type { ConversionOptions } from "./converter.js";
export { Conversion } from "./converter.js";
export { builtinView, convertBuiltin, hasBuiltinForms } from "./builtin.js";
export type { WatchLineConverter } from "./requests.js";
export { inRequestVersion, itemsInRequestVersion, watchLineConverter } from "./requests.js";
