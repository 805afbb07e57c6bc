// Ordering resourceVersions. Kubernetes calls them opaque, but every server this library meets
// (etcd's revisions, the embedded server's counter) issues increasing integers, and
// read-your-writes and informers' progress need an order: numbers compare as numbers, anything
// else as strings.

/** Negative, zero or positive as `a` is older than, the same as or newer than `b`. */
export function compareResourceVersions(a: string, b: string): number {
  if (a.length !== b.length && /^\d+$/.test(a) && /^\d+$/.test(b)) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}
