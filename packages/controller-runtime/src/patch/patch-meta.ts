// Strategic-merge-patch metadata: which lists merge by which key, per field path of a kind.

/** Patch metadata of one field; for a list, `items` describes its elements. */
export interface PatchMeta {
  /** For lists of objects merged by key: the key field (`name` for containers). */
  mergeKey?: string;
  /** `merge` merges lists by `mergeKey` (or as a set for primitives); `replace` is the default. */
  strategy?: "merge" | "replace" | "retainKeys" | "merge,retainKeys";
  /** Metadata of an object's fields. */
  fields?: Record<string, PatchMeta>;
  /** Metadata of list elements or map values. */
  items?: PatchMeta;
}
