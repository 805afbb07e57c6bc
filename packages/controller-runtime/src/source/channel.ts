// Channel: Go's `chan event.GenericEvent` for TypeScript, made for channel sources. Producers
// `send`; every channel source reading the channel (a subscriber) gets every value, in order,
// through its own buffer of `bufferSize` (controller-runtime's DestBufferSize). `send` resolves
// once every subscriber has taken the value into its buffer, so a slow controller slows its
// producers down instead of growing memory without bound.
//
// Before any source subscribes, the channel holds up to `capacity` values itself (Go's
// `make(chan T, capacity)`); further sends wait. Everything runs on one thread, so the bookkeeping
// needs no locks: each method finishes its update before it returns.
import { currentRunnableSignal } from "../internal/runnable-scope.js";
import { ChannelClosedError } from "./errors.js";

/** Options of {@link newChannel}. */
export interface ChannelOptions {
  /** Values the channel holds while no source reads it (or all are full). Default: 0 (sends wait). */
  capacity?: number;
}

/** Options of {@link Channel.send}. */
export interface SendOptions {
  /**
   * Stops waiting for room: the send rejects with the signal's reason and the value is dropped.
   * Default: the signal of the manager's Runnable making the send, if any, so that a producer
   * stopped by the manager never waits for a reader that stopped with it.
   */
  signal?: AbortSignal;
}

/** Options of {@link Channel.subscribe}. */
export interface SubscribeOptions {
  /** Values buffered for this subscriber before `send` waits. Default: 1024. */
  bufferSize?: number;
  /** Ends the subscription. */
  signal?: AbortSignal;
}

/** A multi-subscriber channel of values (see the file comment). */
export interface Channel<T> {
  /** Hands `value` on; resolves once every subscriber buffered it. Rejects after `close()`. */
  send(value: T, options?: SendOptions): Promise<void>;
  /** Hands `value` on only if that needs no waiting; false when it would have to wait or after `close()`. */
  trySend(value: T): boolean;
  /**
   * No more sends. Values already sent (including sends still waiting) are delivered; then every
   * subscription ends, and with it the channel sources reading it.
   */
  close(): void;
  readonly closed: boolean;
  /** Reads every value sent from now on (channel sources call this); ends when the channel is closed and drained. */
  subscribe(options?: SubscribeOptions): AsyncIterableIterator<T>;
}

/** A new channel. */
export function newChannel<T>(options: ChannelOptions = {}): Channel<T> {
  const capacity = options.capacity ?? 0;
  if (!(capacity >= 0) || !Number.isInteger(capacity)) {
    throw new RangeError(`newChannel: capacity must be an integer >= 0, got ${capacity}`);
  }
  return new MultiChannel<T>(capacity);
}

interface BlockedSend<T> {
  value: T;
  resolve(): void;
  reject(reason: unknown): void;
  cleanup(): void;
}

class Subscriber<T> {
  readonly buffer: T[] = [];
  /** Set while the reader waits in `next()` with an empty buffer. */
  waiting: ((r: IteratorResult<T, undefined>) => void) | undefined = undefined;
  ended = false;
  constructor(readonly bufferSize: number) {}
  hasRoom(): boolean {
    return this.buffer.length < this.bufferSize || (this.waiting !== undefined && this.buffer.length === 0);
  }
  deliver(value: T): void {
    if (this.waiting !== undefined) {
      const w = this.waiting;
      this.waiting = undefined;
      w({ done: false, value });
    } else {
      this.buffer.push(value);
    }
  }
  end(): void {
    this.ended = true;
    if (this.waiting !== undefined && this.buffer.length === 0) {
      const w = this.waiting;
      this.waiting = undefined;
      w({ done: true, value: undefined });
    }
  }
}

class MultiChannel<T> implements Channel<T> {
  readonly #capacity: number;
  /** Accepted (their senders resolved) and not yet handed to the subscribers. */
  readonly #held: T[] = [];
  readonly #blocked: BlockedSend<T>[] = [];
  readonly #subs = new Set<Subscriber<T>>();
  #closed = false;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  get closed(): boolean {
    return this.#closed;
  }

  send(value: T, options?: SendOptions): Promise<void> {
    if (this.#closed) return Promise.reject(new ChannelClosedError());
    const own = options?.signal;
    if (own?.aborted) return Promise.reject(own.reason);
    if (this.trySend(value)) return Promise.resolve();
    const signal = own ?? currentRunnableSignal();
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const i = this.#blocked.indexOf(b);
        if (i >= 0) this.#blocked.splice(i, 1);
        reject(signal!.reason);
      };
      const b: BlockedSend<T> = {
        value,
        resolve,
        reject,
        cleanup: () => signal?.removeEventListener("abort", onAbort),
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#blocked.push(b);
    });
  }

  trySend(value: T): boolean {
    if (this.#closed || this.#blocked.length > 0) return false;
    if (this.#held.length === 0 && this.#room()) {
      this.#distribute(value);
      return true;
    }
    if (this.#held.length < this.#capacity) {
      this.#held.push(value);
      return true;
    }
    return false;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pump();
  }

  subscribe(options: SubscribeOptions = {}): AsyncIterableIterator<T> {
    const bufferSize = options.bufferSize ?? 1024;
    if (!(bufferSize >= 0) || !Number.isInteger(bufferSize)) {
      throw new RangeError(`channel subscribe: bufferSize must be an integer >= 0, got ${bufferSize}`);
    }
    const sub = new Subscriber<T>(bufferSize);
    const signal = options.signal;
    const unsubscribe = () => {
      signal?.removeEventListener("abort", unsubscribe);
      if (!this.#subs.delete(sub)) return;
      sub.buffer.length = 0;
      sub.end();
      this.#pump();
    };
    if (signal?.aborted) sub.end();
    else {
      this.#subs.add(sub);
      signal?.addEventListener("abort", unsubscribe, { once: true });
      this.#pump();
    }
    const iterator: AsyncIterableIterator<T> = {
      next: () => {
        if (sub.buffer.length > 0) {
          const value = sub.buffer.shift()!;
          this.#pump();
          return Promise.resolve({ done: false, value });
        }
        if (sub.ended) return Promise.resolve({ done: true, value: undefined });
        return new Promise<IteratorResult<T>>((resolve) => {
          sub.waiting = resolve;
          // The reader is now a rendezvous point even with bufferSize 0.
          this.#pump();
        });
      },
      return: () => {
        unsubscribe();
        return Promise.resolve({ done: true, value: undefined });
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  #room(): boolean {
    if (this.#subs.size === 0) return false;
    for (const s of this.#subs) if (!s.hasRoom()) return false;
    return true;
  }

  #distribute(value: T): void {
    for (const s of this.#subs) s.deliver(value);
  }

  /** Moves values along as far as room allows: held → subscribers, blocked sends → subscribers or held. */
  #pump(): void {
    for (;;) {
      if (this.#room()) {
        if (this.#held.length > 0) {
          this.#distribute(this.#held.shift()!);
          continue;
        }
        const b = this.#blocked.shift();
        if (b === undefined) break;
        b.cleanup();
        this.#distribute(b.value);
        b.resolve();
        continue;
      }
      if (this.#blocked.length > 0 && this.#held.length < this.#capacity) {
        const b = this.#blocked.shift()!;
        b.cleanup();
        this.#held.push(b.value);
        b.resolve();
        continue;
      }
      break;
    }
    if (this.#closed && this.#held.length === 0 && this.#blocked.length === 0) {
      for (const s of this.#subs) s.end();
    }
  }
}
