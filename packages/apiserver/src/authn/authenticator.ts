// Authentication as kube-apiserver does it for this server: bearer tokens, client certificates
// signed by the server's CA (CN is the user, O the groups), else the anonymous user (whom RBAC's
// bootstrap policy lets reach the health and version endpoints only).
import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import type { UserInfo } from "../handlers/context.js";
import { ApiError } from "../status.js";
import { type ServiceAccountTokens, TokenError } from "./service-account-tokens.js";

export interface TokenUser {
  token: string;
  name: string;
  /** Default: none besides `system:authenticated`. */
  groups?: string[];
}

export const anonymous: UserInfo = { name: "system:anonymous", groups: ["system:unauthenticated"] };

function unauthorized(): ApiError {
  return new ApiError(401, "Unauthorized", "Unauthorized");
}

export class Authenticator {
  readonly #tokens = new Map<string, UserInfo>();
  // A client certificate is fixed for the life of a TLS connection: it is read once per socket,
  // not on each keep-alive request (getPeerCertificate builds the whole certificate object).
  readonly #certUsers = new WeakMap<TLSSocket, UserInfo>();

  readonly #serviceAccounts: ServiceAccountTokens | undefined;
  readonly #now: () => Date;

  constructor(users: readonly TokenUser[], serviceAccounts?: ServiceAccountTokens, now = () => new Date()) {
    this.#serviceAccounts = serviceAccounts;
    this.#now = now;
    for (const u of users) {
      this.#tokens.set(u.token, {
        name: u.name,
        groups: [...new Set([...(u.groups ?? []), "system:authenticated"])],
      });
    }
  }

  /**
   * The user of a request, `system:anonymous` without credentials; throws 401 for bad ones.
   * As kube's union authenticator: a valid client certificate first, then a bearer
   * token; an Authorization header that is not `Bearer <token>` (or an empty token) is no
   * credential at all, a token that is not known is a 401.
   */
  authenticate(req: IncomingMessage): UserInfo {
    const byCert = this.#certificateUser(req.socket as TLSSocket);
    if (byCert) return byCert;
    const token = bearerToken(req.headers.authorization);
    if (token !== undefined) {
      const found = this.reviewToken(token, undefined);
      if (!("user" in found)) throw unauthorized();
      return found.user;
    }
    if (this.#presentedCertificate(req.socket as TLSSocket)) throw unauthorized();
    return anonymous;
  }

  /**
   * A bearer token's user, as TokenReview reports it: the user and the audiences (of those
   * wanted, by default this server's) the token is good for, or kube's error.
   */
  reviewToken(
    token: string,
    wanted: readonly string[] | undefined,
  ): { user: UserInfo; audiences: string[] } | { error: string } {
    const audiences = wanted && wanted.length > 0 ? wanted : (this.#serviceAccounts?.apiAudiences ?? []);
    const invalid = "invalid bearer token";
    const user = this.#tokens.get(token);
    if (user) {
      // Static tokens are good for this server's audiences only.
      const api = this.#serviceAccounts?.apiAudiences ?? audiences;
      const matched = audiences.filter((a) => api.includes(a));
      if (matched.length > 0 || audiences.length === 0) return { user, audiences: matched };
      return {
        error: `[${invalid}, token audiences ${goQuoted(api)} is invalid for the target audiences ${goQuoted(audiences)}]`,
      };
    }
    try {
      const found = this.#serviceAccounts?.authenticate(token, audiences, this.#now());
      return found ?? { error: invalid };
    } catch (e) {
      if (e instanceof TokenError) return { error: `[${invalid}, ${e.message}]` };
      throw e;
    }
  }

  /** Whether the client presented a certificate (which may not verify). */
  #presentedCertificate(socket: TLSSocket): boolean {
    if (typeof socket.getPeerCertificate !== "function") return false;
    const cert = socket.getPeerCertificate();
    return cert !== null && cert !== undefined && Object.keys(cert).length > 0;
  }

  /** The user of a verified client certificate (CN the name, O the groups), else undefined. */
  #certificateUser(socket: TLSSocket): UserInfo | undefined {
    const known = this.#certUsers.get(socket);
    if (known) return known;
    if (typeof socket.getPeerCertificate !== "function" || !socket.authorized) return undefined;
    const cert = socket.getPeerCertificate();
    if (!cert || Object.keys(cert).length === 0) return undefined;
    const subject = cert.subject as unknown as Record<string, string | string[] | undefined>;
    const cn = subject.CN;
    const o = subject.O;
    const name = Array.isArray(cn) ? cn[0] : cn;
    if (!name) return undefined;
    const groups = o === undefined ? [] : Array.isArray(o) ? o : [o];
    const user = { name, groups: [...groups, "system:authenticated"] };
    this.#certUsers.set(socket, user);
    return user;
  }
}

/** kube's bearer token authenticator's reading of the header: the token, or undefined for none. */
function bearerToken(header: string | undefined): string | undefined {
  const auth = (header ?? "").trim();
  if (auth === "") return undefined;
  const parts = auth.split(" ");
  if (parts.length < 2 || parts[0].toLowerCase() !== "bearer") return undefined;
  return parts[1] === "" ? undefined : parts[1];
}

function goQuoted(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(" ")}]`;
}
