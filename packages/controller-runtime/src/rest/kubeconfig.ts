// Kubeconfig files: parsed, checked field by field, merged and with relative paths resolved, as
// client-go's clientcmd loads them. Turning the chosen context into a RESTConfig is in get-config.ts.
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve, sep } from "node:path";
import { parseDocument } from "yaml";
import type { ExecConfig } from "./config.js";
import { ConfigError } from "./config-error.js";

export interface KubeconfigCluster {
  server?: string;
  /** An absolute path (resolved against the file that named it). */
  certificateAuthority?: string;
  /** Base64, as written in the file. */
  certificateAuthorityData?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
  proxyUrl?: string;
  /** The `client.authentication.k8s.io/exec` extension, for exec plugins. */
  execExtension?: unknown;
}

export interface KubeconfigUser {
  clientCertificate?: string;
  clientCertificateData?: string;
  clientKey?: string;
  clientKeyData?: string;
  token?: string;
  tokenFile?: string;
  username?: string;
  password?: string;
  exec?: ExecConfig;
  /** Present only to be refused with a clear error: in-tree auth providers are gone. */
  authProvider?: { name: string };
}

export interface KubeconfigContext {
  cluster?: string;
  user?: string;
  namespace?: string;
}

/** A named entry with where it was defined, for error messages. */
export interface Named<T> {
  name: string;
  value: T;
  file: string;
  /** Its place in that file, e.g. `clusters[1]`. */
  field: string;
}

export interface Kubeconfig {
  /** The files merged, in order. */
  files: string[];
  currentContext?: string;
  /** The file that set `current-context`. */
  currentContextFile?: string;
  clusters: Map<string, Named<KubeconfigCluster>>;
  users: Map<string, Named<KubeconfigUser>>;
  contexts: Map<string, Named<KubeconfigContext>>;
}

const execExtensionName = "client.authentication.k8s.io/exec";

/**
 * Reads and merges kubeconfig files with clientcmd's rules: the first file to define a cluster,
 * user or context name wins, and so does the first file to set `current-context`. Every file
 * must exist; duplicates are read once.
 */
export function loadKubeconfig(paths: string[]): Kubeconfig {
  const merged: Kubeconfig = { files: [], clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const path of new Set(paths.map((p) => resolve(p)))) {
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (err) {
      const why = (err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (err as Error).message;
      throw new ConfigError("ERR_KUBECONFIG_READ", `kubeconfig ${path}: cannot read: ${why}`, { cause: err });
    }
    const kc = parseKubeconfig(text, path);
    merged.files.push(path);
    if (merged.currentContext === undefined && kc.currentContext !== undefined) {
      merged.currentContext = kc.currentContext;
      merged.currentContextFile = path;
    }
    for (const key of ["clusters", "users", "contexts"] as const) {
      const into = merged[key] as Map<string, Named<unknown>>;
      for (const [name, entry] of kc[key] as Map<string, Named<unknown>>)
        if (!into.has(name)) into.set(name, entry);
    }
  }
  return merged;
}

/** Parses one kubeconfig document; `file` names it in errors and anchors its relative paths. */
export function parseKubeconfig(text: string, file: string): Kubeconfig {
  const doc = parseDocument(text);
  const syntax = doc.errors[0];
  if (syntax) {
    throw new ConfigError(
      "ERR_KUBECONFIG_SYNTAX",
      `kubeconfig ${file}: invalid YAML: ${syntax.message.split("\n")[0].replace(/:$/, "")}`,
      { cause: syntax },
    );
  }
  const p = new FieldReader(file);
  const root = p.map(doc.toJS(), "the document") ?? {};
  const kc: Kubeconfig = { files: [file], clusters: new Map(), users: new Map(), contexts: new Map() };
  const current = p.str(root, "current-context", "");
  if (current) {
    kc.currentContext = current;
    kc.currentContextFile = file;
  }
  p.named(root, "clusters", "cluster", kc.clusters, (c, f) => p.cluster(c, f));
  p.named(root, "users", "user", kc.users, (u, f) => p.user(u, f));
  p.named(root, "contexts", "context", kc.contexts, (c, f) => ({
    cluster: p.str(c, "cluster", f),
    user: p.str(c, "user", f),
    namespace: p.str(c, "namespace", f),
  }));
  return kc;
}

type Obj = Record<string, unknown>;

/** Reads typed fields out of parsed YAML, naming the exact field when one is wrong. */
class FieldReader {
  constructor(private readonly file: string) {}

  fail(field: string, what: string): never {
    throw new ConfigError("ERR_KUBECONFIG_INVALID", `kubeconfig ${this.file}: ${field} ${what}`);
  }

  private path(field: string, key: string): string {
    return field ? `${field}.${key}` : key;
  }

  map(v: unknown, field: string): Obj | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "object" || Array.isArray(v)) this.fail(field, "must be a mapping");
    return v as Obj;
  }

  str(o: Obj, key: string, field: string): string | undefined {
    const v = o[key];
    if (v === undefined || v === null || v === "") return undefined;
    if (typeof v !== "string") this.fail(this.path(field, key), `must be a string, not ${JSON.stringify(v)}`);
    return v;
  }

  bool(o: Obj, key: string, field: string): boolean | undefined {
    const v = o[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== "boolean")
      this.fail(this.path(field, key), `must be true or false, not ${JSON.stringify(v)}`);
    return v;
  }

  list(o: Obj, key: string, field: string): unknown[] {
    const v = o[key];
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) this.fail(this.path(field, key), "must be a list");
    return v;
  }

  /** A relative path is taken relative to the kubeconfig file, as clientcmd does. */
  filePath(o: Obj, key: string, field: string): string | undefined {
    const v = this.str(o, key, field);
    return v === undefined ? undefined : resolve(dirname(this.file), v);
  }

  named<T>(
    root: Obj,
    key: string,
    inner: string,
    into: Map<string, Named<T>>,
    read: (o: Obj, field: string) => T,
  ): void {
    this.list(root, key, "").forEach((item, i) => {
      const field = `${key}[${i}]`;
      const entry = this.map(item, field) ?? this.fail(field, "must be a mapping");
      const name = this.str(entry, "name", field) ?? this.fail(`${field}.name`, "is missing");
      const seen = into.get(name);
      if (seen) this.fail(`${field}.name`, `"${name}" is used twice (also ${seen.field})`);
      const value = read(this.map(entry[inner], `${field}.${inner}`) ?? {}, `${field}.${inner}`);
      into.set(name, { name, value, file: this.file, field });
    });
  }

  cluster(c: Obj, f: string): KubeconfigCluster {
    const cluster: KubeconfigCluster = {
      server: this.str(c, "server", f),
      certificateAuthority: this.filePath(c, "certificate-authority", f),
      certificateAuthorityData: this.str(c, "certificate-authority-data", f),
      insecureSkipTlsVerify: this.bool(c, "insecure-skip-tls-verify", f),
      tlsServerName: this.str(c, "tls-server-name", f),
      proxyUrl: this.str(c, "proxy-url", f),
    };
    this.list(c, "extensions", f).forEach((item, i) => {
      const ext = this.map(item, `${f}.extensions[${i}]`);
      if (ext?.name === execExtensionName) cluster.execExtension = ext.extension;
    });
    return cluster;
  }

  user(u: Obj, f: string): KubeconfigUser {
    const user: KubeconfigUser = {
      clientCertificate: this.filePath(u, "client-certificate", f),
      clientCertificateData: this.str(u, "client-certificate-data", f),
      clientKey: this.filePath(u, "client-key", f),
      clientKeyData: this.str(u, "client-key-data", f),
      token: this.str(u, "token", f),
      tokenFile: this.filePath(u, "tokenFile", f),
      username: this.str(u, "username", f),
      password: this.str(u, "password", f),
    };
    const provider = this.map(u["auth-provider"], `${f}.auth-provider`);
    if (provider) user.authProvider = { name: this.str(provider, "name", `${f}.auth-provider`) ?? "" };
    const exec = this.map(u.exec, `${f}.exec`);
    if (exec) user.exec = this.exec(exec, `${f}.exec`);
    return user;
  }

  exec(e: Obj, f: string): ExecConfig {
    let command = this.str(e, "command", f) ?? this.fail(`${f}.command`, "is missing");
    // Only a command with a directory part is a file path; a bare name is looked up on PATH.
    if (command.includes(sep) || command.includes("/")) {
      if (!isAbsolute(command)) command = resolve(dirname(this.file), command);
    }
    const args = this.list(e, "args", f).map((a, i) =>
      typeof a === "string" ? a : this.fail(`${f}.args[${i}]`, "must be a string"),
    );
    const env = this.list(e, "env", f).map((item, i) => {
      const field = `${f}.env[${i}]`;
      const entry = this.map(item, field) ?? this.fail(field, "must be a mapping");
      const name = this.str(entry, "name", field) ?? this.fail(`${field}.name`, "is missing");
      return { name, value: this.str(entry, "value", field) ?? "" };
    });
    return {
      command,
      args,
      env,
      apiVersion: this.str(e, "apiVersion", f) ?? this.fail(`${f}.apiVersion`, "is missing"),
      installHint: this.str(e, "installHint", f),
      provideClusterInfo: this.bool(e, "provideClusterInfo", f),
      interactiveMode: this.interactiveMode(e, f),
    };
  }

  interactiveMode(e: Obj, f: string): string | undefined {
    const mode = this.str(e, "interactiveMode", f);
    if (mode !== undefined && !["Never", "IfAvailable", "Always"].includes(mode)) {
      this.fail(`${f}.interactiveMode`, `"${mode}" is not one of Never, IfAvailable, Always`);
    }
    return mode;
  }
}
