// TLS to a webhook trusting its `caBundle` as Go does: every certificate in the bundle is a trust
// anchor, whether or not it is a self-signed root. controller-runtime's envtest, for one, puts
// the webhook's own serving certificate in the bundle. OpenSSL (Node 20 has no
// `allowPartialTrustChain`) accepts only chains that end in a self-signed root, so when it
// refuses a chain for want of an issuer, the chain is checked here against the bundle's
// certificates. Nothing is written on the connection before it is trusted.
import { isIP } from "node:net";
import { X509Certificate } from "node:crypto";
import { checkServerIdentity, connect, type DetailedPeerCertificate, type TLSSocket } from "node:tls";

/** OpenSSL's verdicts that mean "no trusted issuer found", which an anchor may settle. */
const MISSING_ISSUER = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_GET_ISSUER_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
]);

/** Node's error codes, so that callers word them as Go does. */
function tlsError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** The certificates of a PEM bundle; blocks that do not parse are skipped, as Go's pool does. */
export function parseBundle(pem: string): X509Certificate[] {
  const out: X509Certificate[] = [];
  for (const block of pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? []) {
    try {
      out.push(new X509Certificate(block));
    } catch {
      // not a certificate
    }
  }
  return out;
}

function validAt(c: X509Certificate, now: number): boolean {
  return Date.parse(c.validFrom) <= now && now <= Date.parse(c.validTo);
}

/**
 * Whether the presented chain, from its leaf, reaches a certificate of `anchors`: the leaf or an
 * intermediate is itself an anchor, or is signed by one. Each link is checked (names, signature,
 * an issuer that is a CA), and every certificate on the path must be valid now.
 */
export function reachesAnchor(
  leaf: DetailedPeerCertificate,
  anchors: readonly X509Certificate[],
  now = Date.now(),
): "trusted" | "expired" | "unknown-authority" {
  let current: DetailedPeerCertificate | undefined = leaf;
  for (let depth = 0; current && depth < 10; depth++) {
    const cert = new X509Certificate(current.raw);
    if (!validAt(cert, now)) return "expired";
    if (anchors.some((a) => a.raw.equals(cert.raw))) return "trusted";
    if (anchors.some((a) => cert.checkIssued(a) && cert.verify(a.publicKey))) {
      return anchors.some((a) => cert.checkIssued(a) && validAt(a, now)) ? "trusted" : "expired";
    }
    const next: DetailedPeerCertificate | undefined = current.issuerCertificate;
    if (!next || next.raw.equals(current.raw)) return "unknown-authority";
    const issuer = new X509Certificate(next.raw);
    if (!issuer.ca || !cert.checkIssued(issuer) || !cert.verify(issuer.publicKey)) {
      return "unknown-authority";
    }
    current = next;
  }
  return "unknown-authority";
}

export interface AnchoredConnect {
  host: string;
  port: number;
  /** The name the certificate must carry; also sent as SNI unless it is an IP address. */
  servername: string;
  /** PEM: the bundle's certificates are the only anchors. */
  ca: string;
  signal: AbortSignal;
}

/** A TLS connection whose peer is trusted through `ca`, or a rejection worded by Node's codes. */
export function connectAnchored(opts: AnchoredConnect): Promise<TLSSocket> {
  const anchors = parseBundle(opts.ca);
  return new Promise<TLSSocket>((resolve, reject) => {
    const socket = connect({
      host: opts.host,
      port: opts.port,
      ca: opts.ca,
      ...(isIP(opts.servername) ? {} : { servername: opts.servername }),
      // Verified below, before anything is written; OpenSSL's verdict is read there.
      rejectUnauthorized: false,
      checkServerIdentity: () => undefined,
    });
    const fail = (e: Error) => {
      socket.destroy();
      reject(e);
    };
    const onAbort = () =>
      fail(opts.signal.reason instanceof Error ? opts.signal.reason : new Error("aborted"));
    if (opts.signal.aborted) return onAbort();
    opts.signal.addEventListener("abort", onAbort, { once: true });
    socket.once("error", (e) => {
      opts.signal.removeEventListener("abort", onAbort);
      reject(e);
    });
    socket.once("secureConnect", () => {
      opts.signal.removeEventListener("abort", onAbort);
      const verdict = socket.authorizationError as unknown as string | Error | null;
      const code = verdict instanceof Error ? ((verdict as { code?: string }).code ?? "") : (verdict ?? "");
      const peer = socket.getPeerCertificate(true);
      if (code !== "") {
        if (!MISSING_ISSUER.has(code))
          return fail(tlsError(code, `certificate verification failed: ${code}`));
        const reached = reachesAnchor(peer, anchors);
        if (reached === "expired") return fail(tlsError("CERT_HAS_EXPIRED", "certificate has expired"));
        if (reached !== "trusted") return fail(tlsError(code, `certificate verification failed: ${code}`));
      }
      const mismatch = checkServerIdentity(opts.servername, peer);
      if (mismatch) return fail(mismatch);
      resolve(socket);
    });
  });
}
