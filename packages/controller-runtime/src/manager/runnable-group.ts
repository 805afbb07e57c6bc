// A group of runnables started and stopped together, like controller-runtime's runnableGroup.
// The manager keeps one group per phase (HTTP servers, webhooks, caches, others, warm-up, leader
// election) and starts them in that order, each after the previous one is ready.
import { setMaxListeners } from "node:events";
import type { Runnable } from "./runnable.js";
import { isStopOf, startRunnable } from "../internal/runnable-scope.js";

/** Resolves once a runnable is ready to be relied on (a cache synced, a server listening). */
export type ReadyCheck = (signal: AbortSignal) => Promise<void>;

interface Member {
  runnable: Runnable;
  ready?: ReadyCheck;
  done?: Promise<void>;
}

export class RunnableGroup {
  readonly name: string;
  readonly #members: Member[] = [];
  readonly #onError: (err: unknown, r: Runnable) => void;
  #controller: AbortController | undefined;
  #stopped = false;

  constructor(name: string, onError: (err: unknown, r: Runnable) => void) {
    this.name = name;
    this.#onError = onError;
  }

  get started(): boolean {
    return this.#controller !== undefined;
  }

  get size(): number {
    return this.#members.length;
  }

  /**
   * Adds a runnable. Once the group started, it starts at once (controller-runtime starts
   * runnables added after Start the same way). Resolves when it is ready, if it started.
   */
  async add(runnable: Runnable, ready?: ReadyCheck): Promise<void> {
    if (this.#stopped)
      throw new Error(`manager: cannot add a runnable to the ${this.name} group while stopping`);
    const member: Member = { runnable, ready };
    this.#members.push(member);
    const controller = this.#controller;
    if (controller) {
      this.#run(member, controller.signal);
      await member.ready?.(controller.signal);
    }
  }

  /**
   * Starts every member under the group's own signal, which only `stop()` aborts: the manager
   * stops groups one by one, in reverse start order. Resolves once every member is ready, or as
   * soon as `until` aborts (a manager stopping while a cache still syncs).
   */
  async start(until?: AbortSignal): Promise<void> {
    if (this.#controller) return;
    const controller = new AbortController();
    // Each member listens on the group's signal; a group may hold any number of them.
    setMaxListeners(0, controller.signal);
    this.#controller = controller;
    for (const m of this.#members) this.#run(m, controller.signal);
    const waitSignal = until ? AbortSignal.any([until, controller.signal]) : controller.signal;
    await Promise.all(this.#members.map((m) => m.ready?.(waitSignal)));
  }

  /** Aborts the group's signal and resolves once every member's start() settled. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#controller?.abort();
    await Promise.all(this.#members.map((m) => m.done));
  }

  /** Aborts the group's signal without waiting for its members (a shutdown that overran). */
  abort(): void {
    this.#stopped = true;
    this.#controller?.abort();
  }

  #run(member: Member, signal: AbortSignal): void {
    member.done = Promise.resolve()
      .then(() => startRunnable(member.runnable, signal))
      .catch((err: unknown) => {
        if (!isStopOf(signal, err)) this.#onError(err, member.runnable);
      });
  }
}
