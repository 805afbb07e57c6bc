// Authentication and authorization of metrics scrapes, after controller-runtime's
// filters.WithAuthenticationAndAuthorization: the caller's bearer token is checked with a
// TokenReview, then `get` on the path (`/metrics`) with a SubjectAccessReview, both asked of the
// API server. Answers are cached (tokens: 1 min valid, 10 s invalid; decisions: 5 min allowed,
// 30 s denied), bounded, and concurrent identical reviews share one request. Failures answer as
// controller-runtime does: 401 "Unauthorized", 403 "Authorization denied for user <name>", 500
// when the API server could not be asked.
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HTTPHandler } from "../httpserver/index.js";
import type { Logger } from "../log/index.js";
import type { RESTClient } from "../rest/index.js";

/** Wraps a handler with checks of its callers. */
export type MetricsFilter = (handler: HTTPHandler) => HTTPHandler;

/** Makes the filter from the manager's API client (controller-runtime's metrics FilterProvider). */
export type MetricsFilterProvider = (rest: RESTClient, logger: Logger) => MetricsFilter;

export interface AuthFilterOptions {
  /** Audiences the token must be for. Default: the API server's. */
  audiences?: string[];
  /** Default: 60 000 ms. */
  tokenCacheTTLMs?: number;
  /** Default: 10 000 ms. */
  invalidTokenCacheTTLMs?: number;
  /** Default: 300 000 ms. */
  allowCacheTTLMs?: number;
  /** Default: 30 000 ms. */
  denyCacheTTLMs?: number;
  /** Entries each cache keeps at most. Default: 4096. */
  cacheSize?: number;
  /** Default: Date.now. */
  now?: () => number;
}

interface ReviewedUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

/** A bounded map of answers that expire; the oldest entry goes first when full. */
class AnswerCache<T> {
  readonly #entries = new Map<string, { value: T; expires: number }>();
  readonly #inflight = new Map<string, Promise<{ value: T; ttl: number }>>();
  constructor(
    private readonly size: number,
    private readonly now: () => number,
  ) {}

  /** The cached answer, else the one `ask` gives (shared with concurrent callers of the key). */
  async get(key: string, ask: () => Promise<{ value: T; ttl: number }>): Promise<T> {
    const hit = this.#entries.get(key);
    if (hit && hit.expires > this.now()) return hit.value;
    if (hit) this.#entries.delete(key);
    let pending = this.#inflight.get(key);
    if (!pending) {
      pending = ask().finally(() => this.#inflight.delete(key));
      this.#inflight.set(key, pending);
    }
    const { value, ttl } = await pending;
    if (this.#entries.size >= this.size) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(key, { value, expires: this.now() + ttl });
    return value;
  }
}

function bearerToken(req: IncomingMessage): string | undefined {
  const parts = (req.headers.authorization ?? "").trim().split(" ");
  if (parts.length < 2 || parts[0].toLowerCase() !== "bearer" || parts[1] === "") return undefined;
  return parts[1];
}

function plain(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" });
  res.end(`${text}\n`);
}

/**
 * controller-runtime's `filters.WithAuthenticationAndAuthorization`: give it as the metrics
 * server's `filterProvider` (with `secureServing`, so tokens do not cross the network in clear).
 * The manager's identity needs `create` on tokenreviews and subjectaccessreviews (the
 * `system:auth-delegator` ClusterRole grants both).
 */
export function withAuthenticationAndAuthorization(opts: AuthFilterOptions = {}): MetricsFilterProvider {
  return (rest, logger) => {
    const log = logger.withName("metrics-auth");
    const now = opts.now ?? Date.now;
    const size = opts.cacheSize ?? 4096;
    const tokens = new AnswerCache<ReviewedUser | null>(size, now);
    const decisions = new AnswerCache<{ allowed: boolean; reason: string }>(size, now);

    const authenticate = (token: string) =>
      tokens.get(createHash("sha256").update(token).digest("base64"), async () => {
        const review = await rest.request<{ status?: { authenticated?: boolean; user?: ReviewedUser } }>({
          method: "POST",
          path: "/apis/authentication.k8s.io/v1/tokenreviews",
          body: {
            apiVersion: "authentication.k8s.io/v1",
            kind: "TokenReview",
            spec: { token, ...(opts.audiences ? { audiences: opts.audiences } : {}) },
          },
        });
        const user = review.status?.authenticated ? (review.status.user ?? null) : null;
        return {
          value: user,
          ttl: user ? (opts.tokenCacheTTLMs ?? 60_000) : (opts.invalidTokenCacheTTLMs ?? 10_000),
        };
      });

    const authorize = (user: ReviewedUser, verb: string, path: string) =>
      decisions.get(
        JSON.stringify([user.username, user.uid, user.groups, user.extra, verb, path]),
        async () => {
          const review = await rest.request<{ status?: { allowed?: boolean; reason?: string } }>({
            method: "POST",
            path: "/apis/authorization.k8s.io/v1/subjectaccessreviews",
            body: {
              apiVersion: "authorization.k8s.io/v1",
              kind: "SubjectAccessReview",
              spec: {
                nonResourceAttributes: { path, verb },
                user: user.username,
                groups: user.groups,
                extra: user.extra,
                uid: user.uid,
              },
            },
          });
          const allowed = review.status?.allowed === true;
          const ttl = allowed ? (opts.allowCacheTTLMs ?? 300_000) : (opts.denyCacheTTLMs ?? 30_000);
          return { value: { allowed, reason: review.status?.reason ?? "" }, ttl };
        },
      );

    return (handler) => async (req, res) => {
      const token = bearerToken(req);
      if (token === undefined) return plain(res, 401, "Unauthorized");
      let user: ReviewedUser | null;
      try {
        user = await authenticate(token);
      } catch (err) {
        log.error(err, "Authentication failed");
        return plain(res, 500, "Authentication failed");
      }
      if (!user) return plain(res, 401, "Unauthorized");
      const path = new URL(req.url ?? "/", "http://x").pathname;
      let decision: { allowed: boolean; reason: string };
      try {
        decision = await authorize(user, (req.method ?? "GET").toLowerCase(), path);
      } catch (err) {
        const msg = `Authorization for user ${user.username} failed`;
        log.error(err, msg);
        return plain(res, 500, msg);
      }
      if (!decision.allowed) return plain(res, 403, `Authorization denied for user ${user.username}`);
      return handler(req, res);
    };
  };
}
