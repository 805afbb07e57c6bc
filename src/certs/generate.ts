// Certificates for development and tests: a CA, serving certificates for loopback, and client
// certificates whose subject carries a user and groups, as the API server reads them.
// ECDSA P-256 keys from WebCrypto: a CA and a serving certificate take a few milliseconds.
import "reflect-metadata"; // @peculiar/x509 resolves its algorithms through tsyringe, which needs it.
import { webcrypto } from "node:crypto";
import * as x509 from "@peculiar/x509";

const algorithm = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const day = 24 * 60 * 60 * 1000;
x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

type CryptoKey = webcrypto.CryptoKey;
type CryptoKeyPair = webcrypto.CryptoKeyPair;

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

interface CaState {
  cert: x509.X509Certificate;
  keys: CryptoKeyPair;
}

function randomSerial(): string {
  return Buffer.from(webcrypto.getRandomValues(new Uint8Array(9)))
    .toString("hex")
    .replace(/^[89a-f]/, "1");
}

async function keyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey("pkcs8", key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString("base64").replace(/(.{64})/g, "$1\n")}\n-----END PRIVATE KEY-----\n`;
}

// RDN values here are fixed words, user names and group names; escape what the DN syntax reserves.
function rdn(value: string): string {
  return value.replace(/([,+"\\<>;=])/g, "\\$1");
}

async function newKeys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(algorithm, true, ["sign", "verify"])) as CryptoKeyPair;
}

async function sign(
  ca: CaState,
  subject: string,
  validDays: number,
  extensions: x509.Extension[],
): Promise<KeyPair> {
  const keys = await newKeys();
  const notBefore = new Date(Date.now() - 60_000); // tolerate small clock skew between processes
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject,
    issuer: ca.cert.subject,
    notBefore,
    notAfter: new Date(notBefore.getTime() + validDays * day),
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: algorithm,
    extensions: [
      ...extensions,
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString("pem"), keyPem: await keyPem(keys.privateKey) };
}

/** Creates a self-signed CA. `name` becomes its common name. */
export async function newCertificateAuthority(
  name = "controller-runtime-ca",
  validDays = 3650,
): Promise<CertificateAuthority> {
  const keys = await newKeys();
  const notBefore = new Date(Date.now() - 60_000);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: `CN=${rdn(name)}`,
    notBefore,
    notAfter: new Date(notBefore.getTime() + validDays * day),
    keys,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const ca: CaState = { cert, keys };
  return {
    certPem: cert.toString("pem"),
    keyPem: await keyPem(keys.privateKey),
    issueServing: (opts = {}) => {
      const dnsNames = opts.dnsNames ?? ["localhost"];
      const ips = opts.ipAddresses ?? ["127.0.0.1", "::1"];
      return sign(ca, `CN=${rdn(dnsNames[0] ?? ips[0] ?? "localhost")}`, opts.validDays ?? 365, [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
          true,
        ),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension([
          ...dnsNames.map((value) => ({ type: "dns" as const, value })),
          ...ips.map((value) => ({ type: "ip" as const, value })),
        ]),
      ]);
    },
    issueClient: (opts) => {
      const groups = (opts.groups ?? []).map((g) => `O=${rdn(g)}`);
      return sign(ca, [...groups, `CN=${rdn(opts.user)}`].join(", "), opts.validDays ?? 365, [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
      ]);
    },
  };
}
