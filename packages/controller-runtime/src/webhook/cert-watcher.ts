// Serving certificates that follow their files, after controller-runtime's certwatcher: the
// directories are watched (fs.watch catches files replaced by rename and the `..data` symlink
// swap of mounted Secrets) and the files are also re-read periodically, because file events are
// not delivered everywhere (network filesystems, some containers). A half-written pair (a key that
// does not match its certificate) is ignored until the next change: the previous pair stays.
import { watch, type FSWatcher } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import { createSecureContext } from "node:tls";
import type { Logger } from "../log/index.js";
import { CertificateLoadError } from "./errors.js";

/** The PEM files the server serves with. */
export interface CertificateFiles {
  cert: string;
  key: string;
  /** The CA that client certificates must chain to, when client certificates are required. */
  ca?: string;
}

export interface CertWatcherOptions {
  certPath: string;
  keyPath: string;
  /** Default: none (client certificates are not checked). */
  clientCAPath?: string;
  /** Default: 10000 ms, as controller-runtime's certwatcher polls. */
  pollIntervalMs?: number;
  /** Default: nullLogger(). */
  logger: Logger;
}

export interface CertWatcher {
  /** Reads and checks the files; throws CertificateLoadError when they are missing or do not match. */
  load(): Promise<CertificateFiles>;
  /**
   * Watches until `signal` aborts, calling `onChange` with each new valid set of files (never
   * twice for the same contents). `initial` is the set already in use.
   */
  watch(signal: AbortSignal, initial: CertificateFiles, onChange: (files: CertificateFiles) => void): void;
}

export function newCertWatcher(opts: CertWatcherOptions): CertWatcher {
  const pollIntervalMs = opts.pollIntervalMs ?? 10_000;
  const log = opts.logger;

  async function read(path: string, what: string): Promise<string> {
    try {
      return await readFile(path, "utf8");
    } catch (err) {
      throw new CertificateLoadError(
        `the webhook server could not read its ${what} ${path}: ${(err as Error).message}; ` +
          `put the files in the certificate directory (certDir) or point certDir, certName, keyName at them`,
        { cause: err },
      );
    }
  }

  async function load(): Promise<CertificateFiles> {
    // Read together, but reported in a fixed order: with several files missing, the message
    // names the certificate first, whichever read failed first.
    const reads = await Promise.allSettled([
      read(opts.certPath, "certificate"),
      read(opts.keyPath, "private key"),
      opts.clientCAPath ? read(opts.clientCAPath, "client CA certificate") : undefined,
    ]);
    for (const r of reads) if (r.status === "rejected") throw r.reason;
    const [cert, key, ca] = reads.map((r) => (r as PromiseFulfilledResult<string | undefined>).value) as [
      string,
      string,
      string | undefined,
    ];
    try {
      // Throws when the key does not belong to the certificate, or either is not PEM.
      createSecureContext({ cert, key, ca });
    } catch (err) {
      throw new CertificateLoadError(
        `the webhook server's certificate ${opts.certPath} and key ${opts.keyPath} are not a valid pair: ` +
          `${(err as Error).message}`,
        { cause: err },
      );
    }
    return ca === undefined ? { cert, key } : { cert, key, ca };
  }

  function watchFiles(
    signal: AbortSignal,
    initial: CertificateFiles,
    onChange: (f: CertificateFiles) => void,
  ): void {
    if (signal.aborted) return;
    let current = initial;
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
            log.error(err, "error re-reading the webhook certificate; serving the previous one");
            continue;
          }
          if (signal.aborted) return;
          if (next.cert !== current.cert || next.key !== current.key || next.ca !== current.ca) {
            current = next;
            log.info("Updated current TLS certificate", { cert: opts.certPath, key: opts.keyPath });
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
        w.on("error", (err) => log.error(err, "error watching the webhook certificate directory", { dir }));
        watchers.push(w);
      } catch (err) {
        log.error(err, "cannot watch the webhook certificate directory; relying on polling", { dir });
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

  return { load, watch: watchFiles };
}
