// ServiceAccount tokens as kube-apiserver issues and checks them: ES256 JWTs signed by the
// server's key (kid the SHA-256 of its public key), with kube's claims (audiences, expiry, the
// account and an optional bound Pod or Secret, a jti naming the credential). A token is accepted
// while it has not expired, names one of the wanted audiences, and the account (and bound
// object) still exist with the uids it names.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  randomUUID,
  sign,
  verify,
} from "node:crypto";
import type { UserInfo } from "../handlers/context.js";
import type { Obj, Storage } from "../storage/index.js";

export interface BoundObject {
  kind: "Pod" | "Secret";
  name: string;
  uid: string;
}

export interface ServiceAccountRef {
  namespace: string;
  name: string;
  uid: string;
}

interface Claims {
  aud: string[];
  exp: number;
  iat: number;
  iss: string;
  /** A UUID naming this credential (kube 1.32+, ServiceAccountTokenJTI). */
  jti?: string;
  "kubernetes.io": {
    namespace: string;
    pod?: { name: string; uid: string };
    secret?: { name: string; uid: string };
    serviceaccount: { name: string; uid: string };
  };
  nbf: number;
  sub: string;
}

/** Why a token was not accepted, worded as kube's authenticators report it. */
export class TokenError extends Error {}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

export function serviceAccountGroups(namespace: string): string[] {
  return ["system:serviceaccounts", `system:serviceaccounts:${namespace}`, "system:authenticated"];
}

/** `system:serviceaccount:<ns>:<name>` split, or undefined for other names. */
export function splitServiceAccountUser(user: string): { namespace: string; name: string } | undefined {
  const parts = user.split(":");
  if (parts.length !== 4 || parts[0] !== "system" || parts[1] !== "serviceaccount") return undefined;
  if (!parts[2] || !parts[3]) return undefined;
  return { namespace: parts[2], name: parts[3] };
}

/** The key tokens are signed with, and what is derived from it. */
interface SigningKeys {
  readonly key: KeyObject;
  readonly publicKey: KeyObject;
  /** The key id: SHA-256 of the public key's DER, as kube's JWKS publishes it. */
  readonly kid: string;
  readonly pem: string;
}

function signingKeys(key: KeyObject): SigningKeys {
  const publicKey = createPublicKey(key);
  const der = publicKey.export({ type: "spki", format: "der" });
  return {
    key,
    publicKey,
    kid: createHash("sha256").update(der).digest("base64url"),
    pem: key.export({ type: "pkcs8", format: "pem" }).toString(),
  };
}

export class ServiceAccountTokens {
  readonly issuer: string;
  /** What a token must be for to authenticate at this server (`--api-audiences`). */
  readonly apiAudiences: readonly string[];
  #keys: SigningKeys | undefined;
  readonly #storage: Storage;

  constructor(storage: Storage, issuer: string, signingKeyPem?: string) {
    this.#storage = storage;
    this.issuer = issuer;
    this.apiAudiences = [issuer];
    // A given key is read now, so that a bad one fails the start. A new one is made on first use
    // (a token issued, checked or published, or the key asked for), which many tests never need:
    // ~1 ms of a cold start.
    if (signingKeyPem) this.#keys = signingKeys(createPrivateKey(signingKeyPem));
  }

  /** The signing key, PKCS#8 PEM: give it to a restarted server so its tokens stay valid. */
  get signingKeyPem(): string {
    return this.#signing().pem;
  }

  #signing(): SigningKeys {
    this.#keys ??= signingKeys(generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey);
    return this.#keys;
  }

  /** The OpenID discovery document (`/.well-known/openid-configuration`), as kube serves it. */
  openIDConfiguration(): object {
    return {
      issuer: this.issuer,
      jwks_uri: `${this.issuer.replace(/\/+$/, "")}/openid/v1/jwks`,
      response_types_supported: ["id_token"],
      subject_types_supported: ["public"],
      id_token_signing_alg_values_supported: ["ES256"],
    };
  }

  /** The verifying key as a JWK set (`/openid/v1/jwks`). */
  jwks(): object {
    const { publicKey, kid } = this.#signing();
    const jwk = publicKey.export({ format: "jwk" });
    return {
      keys: [{ use: "sig", kty: jwk.kty, kid, crv: jwk.crv, alg: "ES256", x: jwk.x, y: jwk.y }],
    };
  }

  issue(
    sa: ServiceAccountRef,
    audiences: readonly string[],
    expirationSeconds: number,
    now: Date,
    bound?: BoundObject,
  ) {
    const iat = Math.floor(now.getTime() / 1000);
    const k8s: Claims["kubernetes.io"] = {
      namespace: sa.namespace,
      serviceaccount: { name: sa.name, uid: sa.uid },
    };
    if (bound?.kind === "Pod") k8s.pod = { name: bound.name, uid: bound.uid };
    if (bound?.kind === "Secret") k8s.secret = { name: bound.name, uid: bound.uid };
    // Claims in the order Go's encoder writes them (sorted): what `kubectl create token | jwt` shows.
    const sorted = { aud: [...audiences], exp: iat + expirationSeconds, iat, iss: this.issuer };
    const claims = {
      ...sorted,
      jti: randomUUID(),
      "kubernetes.io": sortKeys(k8s),
      nbf: iat,
      sub: `system:serviceaccount:${sa.namespace}:${sa.name}`,
    };
    const { key, kid } = this.#signing();
    const signingInput = `${b64({ alg: "ES256", kid })}.${b64(claims)}`;
    const signature = sign("sha256", Buffer.from(signingInput), {
      key,
      dsaEncoding: "ieee-p1363",
    });
    return {
      token: `${signingInput}.${signature.toString("base64url")}`,
      expires: new Date((iat + expirationSeconds) * 1000),
    };
  }

  /** Whether the token looks like one of ours (a JWT naming our issuer); such a token that fails a
   * check is an error, any other is simply not ours. */
  #parse(token: string): Claims | undefined {
    const parts = token.split(".");
    if (parts.length !== 3) return undefined;
    try {
      const claims = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8")) as Claims;
      return claims && typeof claims === "object" && claims.iss === this.issuer ? claims : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The user of a token and the wanted audiences it names; undefined when the token is not ours;
   * throws TokenError when it is ours but not valid.
   */
  authenticate(
    token: string,
    audiences: readonly string[],
    now: Date,
  ): { user: UserInfo; audiences: string[] } | undefined {
    const claims = this.#parse(token);
    if (!claims) return undefined;
    const [header, payload, signature] = token.split(".");
    const ok = verify(
      "sha256",
      Buffer.from(`${header}.${payload}`),
      { key: this.#signing().publicKey, dsaEncoding: "ieee-p1363" },
      Buffer.from(signature, "base64url"),
    );
    if (!ok) throw new TokenError("square/go-jose: error in cryptographic primitive");
    const nowSeconds = Math.floor(now.getTime() / 1000);
    if (typeof claims.exp !== "number" || nowSeconds > claims.exp)
      throw new TokenError("service account token has expired");
    if (typeof claims.nbf === "number" && nowSeconds < claims.nbf)
      throw new TokenError("service account token is not valid yet");
    const tokenAudiences = Array.isArray(claims.aud) ? claims.aud : [String(claims.aud)];
    const matched = tokenAudiences.filter((a) => audiences.includes(a));
    if (matched.length === 0) {
      throw new TokenError(
        `token audiences ${goQuoted(tokenAudiences)} is invalid for the target audiences ${goQuoted(audiences)}`,
      );
    }
    const k8s = claims["kubernetes.io"];
    const ns = k8s?.namespace ?? "";
    const sa = this.#storage.get("/serviceaccounts", `${ns}/${k8s?.serviceaccount?.name}`);
    if (!sa)
      throw new TokenError(`serviceaccounts ${JSON.stringify(k8s?.serviceaccount?.name ?? "")} not found`);
    const saUid = (sa.obj.metadata as Obj).uid as string;
    if (saUid !== k8s.serviceaccount.uid) {
      throw new TokenError(`service account UID (${saUid}) does not match claim (${k8s.serviceaccount.uid})`);
    }
    const extra: Record<string, string[]> = {};
    // The token's jti names the credential (user.CredentialIDKey), as kube's audit log shows it.
    if (typeof claims.jti === "string" && claims.jti !== "")
      extra["authentication.kubernetes.io/credential-id"] = [`JTI=${claims.jti}`];
    for (const [kind, store] of [
      ["pod", "/pods"],
      ["secret", "/secrets"],
    ] as const) {
      const ref = k8s[kind];
      if (!ref) continue;
      const obj = this.#storage.get(store, `${ns}/${ref.name}`);
      const uid = obj ? ((obj.obj.metadata as Obj).uid as string) : undefined;
      if (!obj) throw new TokenError(`${kind}s ${JSON.stringify(ref.name)} not found`);
      if (uid !== ref.uid)
        throw new TokenError(
          `${kind === "pod" ? "Pod" : "Secret"} UID (${uid}) does not match claim (${ref.uid})`,
        );
      if (kind === "pod") {
        extra["authentication.kubernetes.io/pod-name"] = [ref.name];
        extra["authentication.kubernetes.io/pod-uid"] = [ref.uid];
      }
    }
    const user: UserInfo = {
      name: `system:serviceaccount:${ns}:${k8s.serviceaccount.name}`,
      uid: saUid,
      groups: serviceAccountGroups(ns),
    };
    if (Object.keys(extra).length > 0) user.extra = extra;
    return { user, audiences: matched };
  }
}

function goQuoted(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(" ")}]`;
}

function sortKeys<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : 1))) as T;
}
