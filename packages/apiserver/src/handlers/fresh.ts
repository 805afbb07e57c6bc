// kube's watch cache serves a read not older than a resourceVersion it has not reached by waiting
// for it (waitUntilFreshAndBlock), up to 3 s, before its 504 "Too large resource version": a
// client that read its own write from another apiserver gets its answer instead of an error.
import type { ResourceRequest } from "./context.js";

/** How long kube's watch cache waits for a resourceVersion it has not seen (blockTimeout). */
const FRESH_WAIT_MS = 3000;
const POLL_MS = 25;

/** Waits until the storage reaches `rv` (a decimal resourceVersion), the request ends, or 3 s pass. */
export async function waitForResourceVersion(r: ResourceRequest, rv: string | null): Promise<void> {
  // What is no uint64 is refused at once, as kube parses it before it waits.
  if (rv === null || !/^\d+$/.test(rv) || BigInt(rv) > 0xffffffffffffffffn) return;
  const wanted = Number(rv);
  const storage = r.server.storage;
  const deadline = Date.now() + FRESH_WAIT_MS;
  while (storage.resourceVersion < wanted && Date.now() < deadline && !r.req.destroyed) {
    await new Promise((done) => setTimeout(done, POLL_MS));
  }
}
