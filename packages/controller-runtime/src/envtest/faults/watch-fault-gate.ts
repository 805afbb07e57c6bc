// The injected faults armed on one watch, acted out on its event lines: an end (the connection
// cut, an expiry) after some events, events held until released, delayed, or sent twice. Shared
// by the embedded server's watches and envtest's fault proxy, which sees kube-apiserver's lines.
import type { WatchFault } from "./faults.js";

/** An injected end of a watch: cut or expired after `afterEvents` events. */
export type EndFault = Extract<WatchFault, { afterEvents: number }>;

export class WatchFaultGate {
  readonly #send: (line: string) => void;
  readonly #end: (fault: EndFault) => void;
  readonly #closed: () => boolean;
  #ending: EndFault | undefined;
  #sent = 0;
  #held: string[] | undefined;
  #delay: { ms: number; active(): boolean } | undefined;
  #delayed = 0;
  #chain: Promise<void> = Promise.resolve();
  #duplicate: { active(): boolean } | undefined;

  /** `send` writes a line; `end` acts out an end that came due; `closed` says the watch is over. */
  constructor(send: (line: string) => void, end: (fault: EndFault) => void, closed: () => boolean) {
    this.#send = send;
    this.#end = end;
    this.#closed = closed;
  }

  /** Arms a fault: an end counts events from now (and acts at once when due before any). */
  arm(fault: WatchFault): void {
    if (this.#closed()) return;
    switch (fault.type) {
      case "dropWatch":
      case "expireWatch":
        this.#ending = fault;
        this.#sent = 0;
        if (fault.afterEvents === 0) this.#end(fault);
        return;
      case "hold": {
        if (this.#held) return;
        const held: string[] = [];
        this.#held = held;
        void fault.released.then(() => {
          if (this.#held !== held) return;
          this.#held = undefined;
          for (const line of held) if (!this.#closed()) this.#afterHold(line);
        });
        return;
      }
      case "delay":
        this.#delay = fault;
        return;
      case "duplicate":
        this.#duplicate = fault;
    }
  }

  /** Counts an event about to be sent; returns the armed end when it is due instead (not acted out). */
  dueEnd(): EndFault | undefined {
    const ending = this.#ending;
    if (ending === undefined || this.#sent++ < ending.afterEvents) return undefined;
    return ending;
  }

  /** Counts an event about to be sent; when an armed end is due instead, acts it out and says so. */
  endsBefore(): boolean {
    const ending = this.dueEnd();
    if (ending) this.#end(ending);
    return ending !== undefined;
  }

  /** Passes one event line on, through the armed faults; `counted` false for bookmarks. */
  line(line: string, counted = true): void {
    if (this.#closed() || (counted && this.endsBefore())) return;
    if (this.#held) this.#held.push(line);
    else this.#afterHold(line);
  }

  /** Runs `fn` after every delayed line went out (the end of a proxied stream). */
  after(fn: () => void): void {
    this.#chain = this.#chain.then(fn);
  }

  #afterHold(line: string): void {
    // Once delayed, lines stay in the delay's queue until it drains, so none overtakes another.
    if (this.#delayed > 0 || this.#delay?.active()) {
      const due = performance.now() + (this.#delay?.active() ? this.#delay.ms : 0);
      this.#delayed++;
      this.#chain = this.#chain.then(async () => {
        const wait = due - performance.now();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        this.#delayed--;
        this.#out(line);
      });
      return;
    }
    this.#out(line);
  }

  #out(line: string): void {
    if (this.#closed()) return;
    this.#send(line);
    if (this.#duplicate?.active()) this.#send(line);
  }
}
