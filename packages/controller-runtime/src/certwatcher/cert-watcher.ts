// Serving certificates that follow their files (controller-runtime's certwatcher): the
// directories are watched (fs.watch catches files replaced by rename and the `..data` symlink
// swap of mounted Secrets) and the files are also re-read periodically, because file events are
// not delivered everywhere (network filesystems, some containers). A half-written pair (a key that
// does not match its certificate) is ignored until the next change: the previous pair stays.
// Every read is counted in certwatcher_read_certificate_total (and its errors), as in Go.
import { type FSWatcher, watch } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { createSecureContext } from "node:tls";
import type { Registry } from "prom-client";
import { type Logger, nullLogger } from "../log/index.js";
import { getOrCreateCounter } from "../metrics/registry.js";
import { CertificateLoadError } from "./errors.js";

/** The PEM contents a server serves with. */
export interface CertificateFiles {
  cert: string;
  key: string;
  /** The CA that client certificates must chain to, when client certificates are required. */
  ca?: string;
}

export interface CertWatcherOptions {
  /** The certificate (PEM, the chain after the leaf). */
  certPath: string;
  /** Its private key (PEM). */
  keyPath: string;
  /** A CA file read with the pair (client certificates). Default: none. */
  clientCAPath?: string;
  /** How often the files are re-read besides watching them (Go's `WithWatchInterval`). Default: 10 000 ms. */
  pollIntervalMs?: number;
  /** Default: nullLogger(). */
  logger?: Logger;
  /**
   * Where `certwatcher_read_certificate_total` and `certwatcher_read_certificate_errors_total` are
   * counted: give the Manager's registry. Default: not counted.
   */
  registry?: Registry;
  /** Who serves the certificate, in error messages ("the webhook server"). Default: "the certificate watcher". */
  owner?: string;
}

/** Keeps the current pair of certificate files (controller-runtime's `certwatcher.CertWatcher`). */
export interface CertWatcher {
  /**
   * Reads and checks the files (Go's `ReadCertificate`); a new valid pair becomes current and is
   * passed to the callbacks. Rejects with a `CertificateLoadError` when they are missing or do
   * not match, keeping the current pair.
   */
  readCertificate(): Promise<CertificateFiles>;
  /** The current pair (Go's `GetCertificate`); undefined before the first successful read. */
  getCertificate(): CertificateFiles | undefined;
  /** Calls `fn` with each new pair; returns a function that unregisters it. */
  registerCallback(fn: (files: CertificateFiles) => void): () => void;
  /**
   * Reads the files (unless read already) and follows them until `signal` aborts: a Runnable, so
   * that `mgr.add(watcher)` runs it on every replica. Rejects when the first read fails.
   */
  start(signal: AbortSignal): Promise<void>;
  /** False: every replica serves. */
  needLeaderElection(): boolean;
  /** `readCertificate()` without making the pair current; for a server that checks its files first. */
  load(): Promise<CertificateFiles>;
  /**
   * Follows the files until `signal` aborts, calling `onChange` with each new valid pair (never
   * twice for the same contents). `initial` is the pair already in use.
   */
  watch(signal: AbortSignal, initial: CertificateFiles, onChange: (files: CertificateFiles) => void): void;
}

/** A watcher of `opts.certPath` and `opts.keyPath` (controller-runtime's `certwatcher.New`); reads nothing yet. */
export function newCertWatcher(opts: CertWatcherOptions): CertWatcher {
  const pollIntervalMs = opts.pollIntervalMs ?? 10_000;
  const log = opts.logger ?? nullLogger();
  const owner = opts.owner ?? "the certificate watcher";
  const reads = opts.registry
    ? getOrCreateCounter(opts.registry, {
        name: "certwatcher_read_certificate_total",
        help: "Total number of certificate reads",
        labelNames: [],
      })
    : undefined;
  const readErrors = opts.registry
    ? getOrCreateCounter(opts.registry, {
        name: "certwatcher_read_certificate_errors_total",
        help: "Total number of certificate read errors",
        labelNames: [],
      })
    : undefined;
  let current: CertificateFiles | undefined;
  const callbacks = new Set<(files: CertificateFiles) => void>();

  async function read(path: string, what: string): Promise<string> {
    try {
      return await readFile(path, "utf8");
    } catch (err) {
      throw new CertificateLoadError(
        `${owner} could not read its ${what} ${path}: ${(err as Error).message}; ` +
          `put the files in the certificate directory (certDir) or point certDir, certName, keyName at them`,
        { cause: err },
      );
    }
  }

  async function load(): Promise<CertificateFiles> {
    reads?.inc();
    try {
      return await loadFiles();
    } catch (err) {
      readErrors?.inc();
      throw err;
    }
  }

  async function loadFiles(): Promise<CertificateFiles> {
    // Read together, but reported in a fixed order: with several files missing, the message
    // names the certificate first, whichever read failed first.
    const results = await Promise.allSettled([
      read(opts.certPath, "certificate"),
      read(opts.keyPath, "private key"),
      opts.clientCAPath ? read(opts.clientCAPath, "client CA certificate") : undefined,
    ]);
    for (const r of results) if (r.status === "rejected") throw r.reason;
    const [cert, key, ca] = results.map((r) => (r as PromiseFulfilledResult<string | undefined>).value) as [
      string,
      string,
      string | undefined,
    ];
    try {
      // Throws when the key does not belong to the certificate, or either is not PEM.
      createSecureContext({ cert, key, ca });
    } catch (err) {
      throw new CertificateLoadError(
        `${owner}'s certificate ${opts.certPath} and key ${opts.keyPath} are not a valid pair: ` +
          `${(err as Error).message}`,
        { cause: err },
      );
    }
    return ca === undefined ? { cert, key } : { cert, key, ca };
  }

  const same = (a: CertificateFiles | undefined, b: CertificateFiles) =>
    a !== undefined && a.cert === b.cert && a.key === b.key && a.ca === b.ca;

  function publish(next: CertificateFiles): void {
    if (same(current, next)) return;
    const first = current === undefined;
    current = next;
    if (!first) log.info("Updated current TLS certificate", { cert: opts.certPath, key: opts.keyPath });
    for (const fn of callbacks) {
      try {
        fn(next);
      } catch (err) {
        log.error(err, "certificate callback failed");
      }
    }
  }

  async function readCertificate(): Promise<CertificateFiles> {
    const next = await load();
    publish(next);
    return next;
  }

  function watchFiles(
    signal: AbortSignal,
    initial: CertificateFiles,
    onChange: (f: CertificateFiles) => void,
  ): void {
    if (signal.aborted) return;
    let inUse = initial;
    let running = false;
    let again = false;
    // One reload at a time; events during a reload ask for one more pass afterwards.
    const reload = async () => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      try {
        do {
          again = false;
          let next: CertificateFiles;
          try {
            next = await load();
          } catch (err) {
            log.error(err, "error re-reading the certificate; serving the previous one");
            continue;
          }
          if (signal.aborted) return;
          if (!same(inUse, next)) {
            inUse = next;
            onChange(next);
          }
        } while (again && !signal.aborted);
      } finally {
        running = false;
      }
    };

    const dirs = new Set(
      [opts.certPath, opts.keyPath, opts.clientCAPath].filter((p) => p).map((p) => dirname(p as string)),
    );
    const watchers: FSWatcher[] = [];
    for (const dir of dirs) {
      try {
        const w = watch(dir, { persistent: false }, () => void reload());
        w.on("error", (err) => log.error(err, "error watching the certificate directory", { dir }));
        watchers.push(w);
      } catch (err) {
        log.error(err, "cannot watch the certificate directory; relying on polling", { dir });
      }
    }
    const timer = setInterval(() => void reload(), pollIntervalMs);
    timer.unref();
    signal.addEventListener(
      "abort",
      () => {
        clearInterval(timer);
        for (const w of watchers) w.close();
      },
      { once: true },
    );
  }

  return {
    readCertificate,
    getCertificate: () => current,
    registerCallback(fn) {
      callbacks.add(fn);
      return () => callbacks.delete(fn);
    },
    needLeaderElection: () => false,
    async start(signal) {
      const initial = current ?? (await readCertificate());
      log.info("Starting certificate poll+watcher", { intervalMs: pollIntervalMs });
      watchFiles(signal, initial, publish);
      if (!signal.aborted)
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    },
    load,
    watch: watchFiles,
  };
}
