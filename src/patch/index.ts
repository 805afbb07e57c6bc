// patch: JSON patch, JSON merge patch and strategic merge patch: applying them (the API server)
// and computing them from two objects (the client's mergeFrom / strategicMergeFrom).
export type { PatchMeta } from "./patch-meta.js";
