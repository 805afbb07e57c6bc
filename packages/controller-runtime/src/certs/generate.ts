// Certificates for development and tests: a CA, serving certificates for loopback, and client
// certificates whose subject carries a user and groups, as the API server reads them.
// ECDSA P-256 keys from node:crypto, certificates written as DER (der.ts) and signed by
// node:crypto: a CA and a serving certificate take a millisecond or two, and loading this
// module costs nothing noticeable (an X.509 library cost the API server's cold start ~95 ms).
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign as signData } from "node:crypto";
import {
  bitString,
  boolean,
  explicit,
  implicit,
  ipBytes,
  namedBits,
  octetString,
  oid,
  sequence,
  set,
  smallInteger,
  time,
  unsignedInteger,
  utf8String,
} from "./der.js";

const day = 24 * 60 * 60 * 1000;
const ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";
const OID = {
  commonName: "2.5.4.3",
  organization: "2.5.4.10",
  subjectKeyIdentifier: "2.5.29.14",
  keyUsage: "2.5.29.15",
  subjectAltName: "2.5.29.17",
  basicConstraints: "2.5.29.19",
  authorityKeyIdentifier: "2.5.29.35",
  extKeyUsage: "2.5.29.37",
  serverAuth: "1.3.6.1.5.5.7.3.1",
  clientAuth: "1.3.6.1.5.5.7.3.2",
} as const;
/** KeyUsage bits (RFC 5280 4.2.1.3). */
const USAGE = { digitalSignature: 0, keyEncipherment: 2, keyCertSign: 5, cRLSign: 6 } as const;

/** A certificate and its private key, both PEM. */
export interface KeyPair {
  certPem: string;
  keyPem: string;
}

/** A CA that can sign further certificates. */
export interface CertificateAuthority extends KeyPair {
  /** Signs a serving certificate for the given DNS names and IP addresses. */
  issueServing(opts?: ServingCertOptions): Promise<KeyPair>;
  /** Signs a client certificate: CN is the user, O entries are the groups. */
  issueClient(opts: ClientCertOptions): Promise<KeyPair>;
}

export interface ServingCertOptions {
  /** Default: `["localhost"]`. */
  dnsNames?: string[];
  /** Default: `["127.0.0.1", "::1"]`. */
  ipAddresses?: string[];
  /** Default: 365 days. */
  validDays?: number;
}

export interface ClientCertOptions {
  user: string;
  groups?: string[];
  /** Default: 365 days. */
  validDays?: number;
}

interface Keys {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

interface CaState {
  /** The CA's subject, DER. */
  name: Buffer;
  keys: Keys;
  keyId: Buffer;
}

/** A Name: one RDN per attribute, in order (Go reads O as groups and CN as the user). */
function name(attributes: readonly [string, string][]): Buffer {
  return sequence(...attributes.map(([type, value]) => set(sequence(oid(type), utf8String(value)))));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(oid(id), ...(critical ? [boolean(true)] : []), octetString(value));
}

function newKeys(): Keys {
  return generateKeyPairSync("ec", { namedCurve: "P-256" });
}

/** The key identifier of RFC 5280 4.2.1.2, method 1: SHA-1 of the public key's bits. */
function keyIdOf(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: "jwk" });
  const point = Buffer.concat([
    Buffer.from([4]),
    Buffer.from(jwk.x ?? "", "base64url"),
    Buffer.from(jwk.y ?? "", "base64url"),
  ]);
  return createHash("sha1").update(point).digest();
}

function pem(label: string, der: Buffer): string {
  // 64 characters a line, and no empty line when the length is a multiple of 64.
  const lines = der.toString("base64").match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

/** A certificate for `keys`' public key, signed by `issuer` (itself when self-signed). */
function certificate(opts: {
  subject: Buffer;
  publicKey: KeyObject;
  issuer: CaState;
  validDays: number;
  extensions: Buffer[];
}): string {
  const notBefore = new Date(Date.now() - 60_000); // tolerate small clock skew between processes
  const serial = randomBytes(9);
  serial[0] = (serial[0] ?? 0) & 0x7f || 1; // positive and 9 bytes long
  const algorithm = sequence(oid(ECDSA_WITH_SHA256));
  const tbs = sequence(
    explicit(0, smallInteger(2)), // v3
    unsignedInteger(serial),
    algorithm,
    opts.issuer.name,
    sequence(time(notBefore), time(new Date(notBefore.getTime() + opts.validDays * day))),
    opts.subject,
    opts.publicKey.export({ type: "spki", format: "der" }),
    explicit(3, sequence(...opts.extensions)),
  );
  const signature = signData("sha256", tbs, { key: opts.issuer.keys.privateKey, dsaEncoding: "der" });
  return pem("CERTIFICATE", sequence(tbs, algorithm, bitString(signature)));
}

function keyPem(key: KeyObject): string {
  return key.export({ type: "pkcs8", format: "pem" }).toString();
}

function sign(ca: CaState, subject: Buffer, validDays: number, extensions: Buffer[]): KeyPair {
  const keys = newKeys();
  const certPem = certificate({
    subject,
    publicKey: keys.publicKey,
    issuer: ca,
    validDays,
    extensions: [
      ...extensions,
      extension(OID.authorityKeyIdentifier, false, sequence(implicit(0, ca.keyId))),
      extension(OID.subjectKeyIdentifier, false, octetString(keyIdOf(keys.publicKey))),
    ],
  });
  return { certPem, keyPem: keyPem(keys.privateKey) };
}

const notCA = () => extension(OID.basicConstraints, true, sequence());
const usage = (...bits: number[]) => extension(OID.keyUsage, true, namedBits(bits));
const extUsage = (id: string) => extension(OID.extKeyUsage, false, sequence(oid(id)));

/** Creates a self-signed CA. `name` becomes its common name. */
export async function newCertificateAuthority(
  commonName = "controller-runtime-ca",
  validDays = 3650,
): Promise<CertificateAuthority> {
  const keys = newKeys();
  const keyId = keyIdOf(keys.publicKey);
  const ca: CaState = { name: name([[OID.commonName, commonName]]), keys, keyId };
  const certPem = certificate({
    subject: ca.name,
    publicKey: keys.publicKey,
    issuer: ca,
    validDays,
    extensions: [
      extension(OID.basicConstraints, true, sequence(boolean(true))),
      usage(USAGE.keyCertSign, USAGE.cRLSign),
      extension(OID.subjectKeyIdentifier, false, octetString(keyId)),
    ],
  });
  return {
    certPem,
    keyPem: keyPem(keys.privateKey),
    issueServing: async (opts = {}) => {
      const dnsNames = opts.dnsNames ?? ["localhost"];
      const ips = opts.ipAddresses ?? ["127.0.0.1", "::1"];
      const altNames = sequence(
        ...dnsNames.map((dns) => implicit(2, Buffer.from(dns, "ascii"))),
        ...ips.map((ip) => implicit(7, ipBytes(ip))),
      );
      return sign(ca, name([[OID.commonName, dnsNames[0] ?? ips[0] ?? "localhost"]]), opts.validDays ?? 365, [
        notCA(),
        usage(USAGE.digitalSignature, USAGE.keyEncipherment),
        extUsage(OID.serverAuth),
        extension(OID.subjectAltName, false, altNames),
      ]);
    },
    issueClient: async (opts) => {
      const subject = name([
        ...(opts.groups ?? []).map((g): [string, string] => [OID.organization, g]),
        [OID.commonName, opts.user],
      ]);
      return sign(ca, subject, opts.validDays ?? 365, [
        notCA(),
        usage(USAGE.digitalSignature),
        extUsage(OID.clientAuth),
      ]);
    },
  };
}
