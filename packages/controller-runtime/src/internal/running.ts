// The informers and controllers running in this process, for test oracles (envtest's settle())
// that must know when everything has caught up. Entries are held weakly and removed when they
// stop, so production code pays one Set insert per informer or controller run.

/** What settle() asks of a running informer. */
export interface RunningInformer {
  readonly what: string;
  /** Whether the store holds exactly what the server holds now (one list per watched scope). */
  caughtUp(): Promise<boolean>;
}

/** What settle() asks of a running controller. */
export interface RunningController {
  readonly what: string;
  /**
   * What keeps it busy ("2 keys ready, 1 reconciling, 3 retrying after errors"), or undefined
   * when idle. Keys waiting out a requeueAfter do not count; keys retrying after an error do.
   */
  busy(): string | undefined;
}

const informers = new Set<WeakRef<RunningInformer>>();
const controllers = new Set<WeakRef<RunningController>>();

function track<T extends object>(set: Set<WeakRef<T>>, item: T): () => void {
  const ref = new WeakRef(item);
  set.add(ref);
  // The removal holds the item: while its owner keeps the removal (until it stops), the entry
  // stays; an owner dropped without stopping takes it with it. Without this, a tracker nothing
  // else referenced (an object literal) could be collected while its controller still ran, and
  // settle() would see an idle process with work queued.
  return () => {
    set.delete(ref);
    return item;
  };
}

function live<T extends object>(set: Set<WeakRef<T>>): T[] {
  const out: T[] = [];
  for (const ref of set) {
    const item = ref.deref();
    if (item === undefined) set.delete(ref);
    else out.push(item);
  }
  return out;
}

/** Registers a running informer; returns its removal (call when it stops). */
export function trackInformer(informer: RunningInformer): () => void {
  return track(informers, informer);
}

/** Registers a running controller; returns its removal (call when it stops). */
export function trackController(controller: RunningController): () => void {
  return track(controllers, controller);
}

export function runningInformers(): RunningInformer[] {
  return live(informers);
}

export function runningControllers(): RunningController[] {
  return live(controllers);
}
