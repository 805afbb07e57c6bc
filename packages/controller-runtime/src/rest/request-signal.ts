// Each request gets a signal of its own, aborted with the caller's. undici adds an abort listener
// to the signal of every request it sends and removes it only when the response body closes, a
// tick or more after the caller has its answer: a signal shared by many requests (a controller
// worker's, handed to every reconcile) collected more than Node's 10 listeners with only a few
// requests in flight, and warned of a leak (MaxListenersExceededWarning). Here a caller's signal
// has one listener however many of its requests are in flight, and undici's go on the request's
// own signal, which is dropped with the request. (AbortSignal.any would do the same, but Node 20
// keeps every dependent of a long-lived signal until that signal is collected.)

const children = new WeakMap<AbortSignal, Set<AbortController>>();

/** A signal for one request, aborted when `parent` aborts; `release()` once the request ended. */
export function requestSignal(parent: AbortSignal): { signal: AbortSignal; release(): void } {
  if (parent.aborted) return { signal: parent, release() {} };
  let inFlight = children.get(parent);
  if (!inFlight) {
    const set = new Set<AbortController>();
    inFlight = set;
    children.set(parent, set);
    parent.addEventListener(
      "abort",
      () => {
        for (const c of set) c.abort(parent.reason);
        set.clear();
      },
      { once: true },
    );
  }
  const own = new AbortController();
  const set = inFlight;
  set.add(own);
  return { signal: own.signal, release: () => set.delete(own) };
}
