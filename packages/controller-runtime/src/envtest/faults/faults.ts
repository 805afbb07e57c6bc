// Faults on demand: a test asks the API server to fail the requests it names, as a cluster does
// now and then (a conflict storm, throttling, an overloaded, slow or restarting server, a watch
// that drops, expires, lags or repeats, a partitioned replica, a stolen Lease), to see its
// operator survive them. The embedded server acts them out itself; envtest's fault proxy acts out
// those a proxy can in front of kube-apiserver (a FaultHost gives each what it can reach). A rule
// matches requests by verb, resource, namespace, name, watch or not and the caller; its action
// answers with kube's own Status, waits, or arms a watch. `times` and `probability` bound it; a
// seed makes the probability draws repeat from run to run. Each draw is a function of the seed,
// the request's signature (verb, resource, subresource, name, caller; not the namespace, so a
// scenario replays alike in a fresh one) and how many such requests the rule saw before: which
// request of an object fails does not depend on how the requests of different objects
// interleave, so a controller with several workers replays the same trace. Rules apply in the
// order they were added; latency and partitions let the request go on, so later rules still
// apply to it.
import type { IncomingMessage, ServerResponse } from "node:http";
import { expiredStatus, FaultStatusError, internalFault, staleConflict } from "./status.js";

/** An object as the fault layer handles it (a Lease it steals). */
export type Obj = Record<string, unknown>;

/** What the fault layer reads of a resource request (a `ResourceRequest` or the proxy's parse of a path). */
export interface FaultRequest {
  readonly def: { readonly group: string; readonly plural: string; readonly kind: string };
  readonly namespace: string;
  readonly name: string;
  readonly subresource: string;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly user: { readonly name: string };
}

/** Which requests a rule applies to; every field given must match. */
export interface FaultMatch {
  /** kube's verbs: get, list, watch, create, update, patch, delete, deletecollection. */
  verbs?: readonly string[];
  /** The API group ("" for the core group). */
  group?: string;
  /** The resource, plural (`configmaps`). */
  resource?: string;
  /** The subresource (`status`, `scale`); "" for the object itself. */
  subresource?: string;
  namespace?: string;
  name?: string;
  /** True for watches only, false for everything but watches. */
  watch?: boolean;
  /** Only requests whose User-Agent contains this. */
  userAgent?: string;
  /** Only requests of this authenticated user. */
  user?: string;
}

/** What a rule does to a request it matches. */
export type FaultAction =
  | {
      readonly type: "error";
      readonly code: 409 | 429 | 500 | 503 | 504;
      readonly retryAfterSeconds?: number;
    }
  | { readonly type: "latency"; readonly ms: number }
  | { readonly type: "dropWatch"; readonly afterEvents: number }
  | { readonly type: "expireWatch"; readonly afterEvents: number }
  | { readonly type: "holdEvents" }
  | { readonly type: "delayEvents"; readonly ms: number }
  | { readonly type: "duplicateEvents" }
  | { readonly type: "partition" }
  | { readonly type: "staleReads"; readonly lagRV: number };

/**
 * Reads at resourceVersion=0 (which kube serves from its watch cache, as informers' first list
 * does) answer the state `lagRV` versions ago, as a lagging watch cache does.
 */
export function staleReads(opts: { lagRV: number }): FaultAction {
  if (!Number.isInteger(opts.lagRV) || opts.lagRV < 0) {
    throw new RangeError(`staleReads: lagRV must be an integer >= 0, got ${opts.lagRV}`);
  }
  return { type: "staleReads", lagRV: opts.lagRV };
}

/** Watches hold their live events until the rule is cleared, then send them in order. */
export function holdEvents(): FaultAction {
  return { type: "holdEvents" };
}

/** Watches send each live event `ms` after it happened, in order. */
export function delayEvents(ms: number): FaultAction {
  if (!(ms >= 0) || !Number.isFinite(ms)) {
    throw new RangeError(`delayEvents: ms must be a finite number >= 0, got ${ms}`);
  }
  return { type: "delayEvents", ms };
}

/** Watches send each live event twice, as a client sees objects again after a relist. */
export function duplicateEvents(): FaultAction {
  return { type: "duplicateEvents" };
}

/**
 * The matching clients are cut off until the rule is cleared: their requests wait (then go on),
 * their open watches hold their events (then send them). Match them by `user` or `userAgent`.
 */
export function partition(): FaultAction {
  return { type: "partition" };
}

/**
 * The answer kube gives for `code`: 409 Conflict, 429 throttled, 500, 503, 504 timeout;
 * `retryAfterSeconds` is its Retry-After header (kube's own unit; 429 and 504 default to 1).
 */
export function error(opts: {
  code: 409 | 429 | 500 | 503 | 504;
  retryAfterSeconds?: number;
  /** @deprecated The same as `retryAfterSeconds`, whose name says the unit. */
  retryAfter?: number;
}): FaultAction {
  return { type: "error", code: opts.code, retryAfterSeconds: opts.retryAfterSeconds ?? opts.retryAfter };
}

/** The request waits `ms` before the server handles it. */
export function latency(ms: number): FaultAction {
  if (!(ms >= 0) || !Number.isFinite(ms))
    throw new RangeError(`latency: ms must be a finite number >= 0, got ${ms}`);
  return { type: "latency", ms };
}

/** The watch's connection is cut after `afterEvents` events (0: before the first). */
export function dropWatch(opts: { afterEvents?: number } = {}): FaultAction {
  return { type: "dropWatch", afterEvents: count(opts.afterEvents ?? 0, "dropWatch") };
}

/** The watch ends with an ERROR event 410 Expired after `afterEvents` events, as after a compaction. */
export function expireWatch(opts: { afterEvents?: number } = {}): FaultAction {
  return { type: "expireWatch", afterEvents: count(opts.afterEvents ?? 0, "expireWatch") };
}

function count(n: number, what: string): number {
  if (!Number.isInteger(n) || n < 0)
    throw new RangeError(`${what}: afterEvents must be an integer >= 0, got ${n}`);
  return n;
}

export interface FaultRule {
  /** Default: every request to a resource. */
  match?: FaultMatch;
  action: FaultAction;
  /** Fires at most this many times. Default: no limit. */
  times?: number;
  /** Fires on this fraction of matching requests. Default: 1. */
  probability?: number;
  /**
   * Seed of the probability draws. Default: 1. The n-th request of one signature (verb,
   * resource, subresource, name and caller) draws the same under one seed in every run.
   */
  seed?: number;
}

/** A rule added with `inject`: how often it fired, and its removal. */
export interface FaultHandle {
  readonly hits: number;
  clear(): void;
}

/** A fault armed on one watch: end it after some events, or hold, delay or repeat its events while active. */
export type WatchFault =
  | { readonly type: "dropWatch" | "expireWatch"; readonly afterEvents: number }
  | { readonly type: "hold"; readonly released: Promise<void> }
  | { readonly type: "delay"; readonly ms: number; active(): boolean }
  | { readonly type: "duplicate"; active(): boolean };

interface Rule extends FaultHandle {
  readonly spec: FaultRule;
  hits: number;
  cleared: boolean;
  /** How many requests of each signature the rule drew for. */
  readonly drawn: Map<string, number>;
  /** Resolves when the rule is cleared (a partition healed, held events released). */
  readonly cleared$: Promise<void>;
}

/** One write a client made, as a write log records it. */
export interface LoggedWrite {
  /** kube's verb: create, update, patch, delete, deletecollection. */
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource: string;
  readonly namespace: string;
  readonly name: string;
  /** The caller: its User-Agent header (and its user, on the embedded server). */
  readonly userAgent: string;
  readonly user: string;
  /** When the request arrived (ms, `performance.now()`). */
  readonly at: number;
  /** The injected error that failed it (`"409"`, `"503"`, ...), if one did. */
  fault?: string;
}

/** A write log: what each identity wrote, from `recordWrites()` until `stop()`. */
export interface WriteLog {
  readonly writes: readonly LoggedWrite[];
  /** The writes of one caller (its User-Agent contains `identity`, or its user is `identity`). */
  by(identity: string): LoggedWrite[];
  stop(): void;
}

const READS = new Set(["get", "list", "watch"]);

/** What the rules decided for one request besides failing or delaying it. */
export interface RequestFaults {
  /** A fault to arm on the watch the request opens. */
  readonly watchFault?: WatchFault;
  /** For a read at resourceVersion=0: how many versions behind to answer. */
  readonly staleBy?: number;
}

/** What the fault layer may do to the server as a whole: the embedded server, or a proxy before another. */
export interface FaultHost {
  /** Drops every connection, watches included. */
  dropConnections(): void;
  /** The Lease `namespace/name`, or undefined. */
  getLease(namespace: string, name: string): Promise<Obj | undefined>;
  /**
   * Writes a Lease read with `getLease`; false (nothing written) when it changed since, as when
   * its holder renewed in between.
   */
  putLease(lease: Obj): Promise<boolean>;
  /** Compacts the history up to a version (the embedded server's storage only). */
  compact?(resourceVersion?: number): void;
  /** Actions this host cannot act out, and why. */
  readonly unsupported?: Readonly<Record<string, string>>;
  now(): Date;
}

const WATCH_ACTIONS = new Set(["dropWatch", "expireWatch", "holdEvents", "delayEvents", "duplicateEvents"]);

/** One draw in [0, 1) for a seed, a request signature and its occurrence: FNV-1a, then mulberry32's mix. */
function drawFor(seed: number, signature: string, occurrence: number): number {
  let h = 0x811c9dc5 ^ (seed >>> 0);
  for (let i = 0; i < signature.length; i++) h = Math.imul(h ^ signature.charCodeAt(i), 0x01000193);
  let t = (h ^ Math.imul(occurrence + 1, 0x9e3779b1)) >>> 0;
  t = (t + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** What makes two requests "the same request" for the draws; the namespace is left out on purpose. */
function signatureOf(r: FaultRequest, verb: string): string {
  const ua = r.req.headers["user-agent"] ?? "";
  return `${verb}\0${r.def.group}\0${r.def.plural}\0${r.subresource}\0${r.name}\0${ua}\0${r.user.name}`;
}

/** The verb of a resource request, in kube's words. */
export function verbOf(method: string, r: Pick<FaultRequest, "name">, watch: boolean): string {
  switch (method) {
    case "GET":
    case "HEAD":
      return watch ? "watch" : r.name ? "get" : "list";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return r.name ? "delete" : "deletecollection";
    default:
      return method.toLowerCase();
  }
}

function matches(m: FaultMatch | undefined, r: FaultRequest, verb: string, watch: boolean): boolean {
  if (!m) return true;
  if (m.verbs && !m.verbs.includes(verb)) return false;
  if (m.group !== undefined && m.group !== r.def.group) return false;
  if (m.resource !== undefined && m.resource !== r.def.plural) return false;
  if (m.subresource !== undefined && m.subresource !== r.subresource) return false;
  if (m.namespace !== undefined && m.namespace !== r.namespace) return false;
  if (m.name !== undefined && m.name !== r.name) return false;
  if (m.watch !== undefined && m.watch !== watch) return false;
  if (m.userAgent !== undefined && !(r.req.headers["user-agent"] ?? "").includes(m.userAgent)) return false;
  if (m.user !== undefined && m.user !== r.user.name) return false;
  return true;
}

/** kube's Status for an injected error, and its Retry-After. */
function errorFor(action: Extract<FaultAction, { type: "error" }>, r: FaultRequest): FaultStatusError {
  const retry = action.retryAfterSeconds;
  switch (action.code) {
    case 409:
      return staleConflict({ group: r.def.group, resource: r.def.plural }, r.name, r.namespace);
    case 429:
      return new FaultStatusError(429, "TooManyRequests", "Too many requests, please try again later.", {
        retryAfterSeconds: retry ?? 1,
      });
    case 500:
      return internalFault("injected fault");
    case 503:
      return new FaultStatusError(
        503,
        "ServiceUnavailable",
        "the server is currently unable to handle the request",
        {
          ...(retry !== undefined ? { retryAfterSeconds: retry } : {}),
        },
      );
    case 504:
      return new FaultStatusError(
        504,
        "Timeout",
        "the server was unable to return a response in the time allotted, but may still be processing the request",
        { retryAfterSeconds: retry ?? 1 },
      );
  }
}

interface OpenWatch {
  readonly r: FaultRequest;
  arm(fault: WatchFault): void;
}

export class Faults {
  readonly #host: FaultHost | undefined;
  #rules: Rule[] = [];
  #thefts = 0;
  /** Watches open now: a watch rule added later applies to them too, counting events from then. */
  readonly #watches = new Set<OpenWatch>();

  constructor(host?: FaultHost) {
    this.#host = host;
  }

  /** Adds a rule; it applies to requests from now on. */
  inject(spec: FaultRule): FaultHandle {
    const why = this.#host?.unsupported?.[spec.action.type];
    if (why) throw new Error(`faults: ${spec.action.type} ${why}`);
    const p = spec.probability ?? 1;
    if (!(p >= 0 && p <= 1)) throw new RangeError(`inject: probability must be within [0, 1], got ${p}`);
    if (spec.times !== undefined && !(Number.isInteger(spec.times) && spec.times >= 0)) {
      throw new RangeError(`inject: times must be an integer >= 0, got ${spec.times}`);
    }
    let heal!: () => void;
    const cleared$ = new Promise<void>((resolve) => {
      heal = resolve;
    });
    const rule: Rule = {
      spec,
      hits: 0,
      cleared: false,
      cleared$,
      drawn: new Map(),
      clear: () => {
        if (rule.cleared) return;
        rule.cleared = true;
        this.#rules = this.#rules.filter((x) => x !== rule);
        heal();
      },
    };
    this.#rules = [...this.#rules, rule];
    const action = spec.action;
    if (WATCH_ACTIONS.has(action.type) || action.type === "partition") {
      for (const w of [...this.#watches]) {
        if (!this.#fires(rule, w.r, "watch", true)) continue;
        w.arm(watchFaultOf(rule));
      }
    }
    return rule;
  }

  /** Whether this environment can act out `action` (a FaultAction's type, or "compact", "restart", "stealLease"). */
  supports(action: string): boolean {
    if (this.#host?.unsupported?.[action]) return false;
    if (action === "compact") return this.#host?.compact !== undefined;
    if (action === "restart" || action === "stealLease") return this.#host !== undefined;
    return true;
  }

  /** Drops every connection and watch, as a restart of the API server does; the objects stay. */
  restart(): void {
    this.#need("restart").dropConnections();
  }

  /**
   * Compacts the history up to `resourceVersion` (default: the current one): lists and watches
   * from an older version get 410 Expired, as after etcd's compaction.
   */
  compact(resourceVersion?: number): void {
    const compact = this.#need("compact").compact;
    if (!compact) throw new Error("faults: compact needs the embedded API server (its storage's history)");
    compact(resourceVersion);
  }

  /**
   * Another holder takes the Lease `name` (in `namespace`, default "default"): its holderIdentity
   * becomes `holder` (default: a new name) and its times now, as when a leader's renewals stop
   * reaching the server and another replica acquires it. Returns the new holder.
   */
  async stealLease(name: string, opts: { namespace?: string; holder?: string } = {}): Promise<string> {
    const host = this.#need("stealLease");
    const namespace = opts.namespace ?? "default";
    const holder = opts.holder ?? `fault-injector-${++this.#thefts}`;
    // The holder renews meanwhile: a renewal between the read and the write makes the write a
    // conflict, and the theft is tried again on what the holder wrote.
    for (let attempt = 0; attempt < 10; attempt++) {
      const lease = await host.getLease(namespace, name);
      if (!lease) throw new Error(`stealLease: there is no Lease ${namespace}/${name}`);
      const spec = { ...((lease.spec ?? {}) as Obj) };
      // MicroTime: six digits of fractions, as kube writes Lease times.
      const now = `${host.now().toISOString().slice(0, -1)}000Z`;
      spec.holderIdentity = holder;
      spec.acquireTime = now;
      spec.renewTime = now;
      spec.leaseTransitions = (typeof spec.leaseTransitions === "number" ? spec.leaseTransitions : 0) + 1;
      lease.spec = spec;
      if (await host.putLease(lease)) return holder;
    }
    throw new Error(
      `stealLease: the Lease ${namespace}/${name} changed at each of 10 tries; is it renewed in a loop?`,
    );
  }

  #need(what: string): FaultHost {
    if (!this.#host) throw new Error(`faults: ${what} needs an API server to act on`);
    return this.#host;
  }

  /** Registers an open watch, so that watch rules added while it is open apply to it; returns its removal. */
  trackWatch(r: FaultRequest, arm: (fault: WatchFault) => void): () => void {
    const w: OpenWatch = { r, arm };
    this.#watches.add(w);
    return () => this.#watches.delete(w);
  }

  /** Whether `rule` fires for a request (counting the hit when it does). */
  #fires(rule: Rule, r: FaultRequest, verb: string, watch: boolean): boolean {
    if (rule.cleared || !matches(rule.spec.match, r, verb, watch)) return false;
    const { times, probability } = rule.spec;
    if (times !== undefined && rule.hits >= times) return false;
    if (probability !== undefined && probability < 1) {
      const signature = signatureOf(r, verb);
      const n = rule.drawn.get(signature) ?? 0;
      rule.drawn.set(signature, n + 1);
      if (drawFor(rule.spec.seed ?? 1, signature, n) >= probability) return false;
    }
    rule.hits++;
    return true;
  }

  /** Removes every rule. */
  clear(): void {
    for (const r of this.#rules) r.cleared = true;
    this.#rules = [];
  }

  readonly #logs = new Set<LoggedWrite[]>();

  /** Whether any rule or write log is set (requests skip the fault layer when none is). */
  get active(): boolean {
    return this.#rules.length > 0 || this.#logs.size > 0;
  }

  /** Records every write from now on, with its caller, until the log's `stop()`. */
  recordWrites(): WriteLog {
    const writes: LoggedWrite[] = [];
    this.#logs.add(writes);
    return {
      writes,
      by: (identity) => writes.filter((w) => w.user === identity || w.userAgent.includes(identity)),
      stop: () => this.#logs.delete(writes),
    };
  }

  /**
   * Applies the rules to a request before it is handled: throws the error of an error rule,
   * waits out latency rules, and returns the fault to arm on a watch.
   */
  async before(r: FaultRequest, method: string, watch: boolean): Promise<RequestFaults> {
    const verb = verbOf(method, r, watch);
    let logged: LoggedWrite | undefined;
    if (this.#logs.size > 0 && !READS.has(verb)) {
      logged = {
        verb,
        group: r.def.group,
        resource: r.def.plural,
        subresource: r.subresource,
        namespace: r.namespace,
        name: r.name,
        userAgent: r.req.headers["user-agent"] ?? "",
        user: r.user.name,
        at: performance.now(),
      };
      for (const log of this.#logs) log.push(logged);
    }
    let armed: WatchFault | undefined;
    let staleBy: number | undefined;
    for (const rule of this.#rules) {
      const action = rule.spec.action;
      if (WATCH_ACTIONS.has(action.type) && !watch) continue;
      if (action.type === "staleReads" && verb !== "get" && verb !== "list") continue;
      if (!this.#fires(rule, r, verb, watch)) continue;
      switch (action.type) {
        case "latency":
          await new Promise((resolve) => setTimeout(resolve, action.ms));
          continue;
        case "partition":
          // Cut off until healed; then the request goes on as if it had only been slow.
          await rule.cleared$;
          continue;
        case "staleReads":
          staleBy ??= action.lagRV;
          continue;
        case "error": {
          const err = errorFor(action, r);
          const retry = err.status.details?.retryAfterSeconds;
          if (retry !== undefined && !r.res.headersSent) r.res.setHeader("Retry-After", String(retry));
          if (logged) logged.fault = String(action.code);
          throw err;
        }
        default:
          armed ??= watchFaultOf(rule);
      }
    }
    return { watchFault: armed, staleBy };
  }
}

/** The fault a watch rule arms on one watch. */
function watchFaultOf(rule: Rule): WatchFault {
  const action = rule.spec.action;
  const active = () => !rule.cleared;
  switch (action.type) {
    case "dropWatch":
    case "expireWatch":
      return { type: action.type, afterEvents: action.afterEvents };
    case "delayEvents":
      return { type: "delay", ms: action.ms, active };
    case "duplicateEvents":
      return { type: "duplicate", active };
    default:
      return { type: "hold", released: rule.cleared$ };
  }
}

/** The ERROR line an expired watch ends with. */
export function expiredWatchLine(resourceVersion: number): string {
  const status = expiredStatus(`too old resource version: ${resourceVersion} (${resourceVersion + 1})`);
  return `{"type":"ERROR","object":${JSON.stringify(status)}}\n`;
}
