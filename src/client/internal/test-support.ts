// Shared by the client's and controllerutil's tests: a namespace per test, and waiting for a
// condition on the server by watching (never by sleeping).
import { randomUUID } from "node:crypto";
import { type Kind, kinds } from "../../api/index.js";
import { newRESTClient, type RESTClient, resourceOf } from "../../rest/index.js";
import type { RESTConfig } from "../../rest/config.js";

/** Creates a namespace with a fresh name starting with `prefix`. */
export async function newNamespace(rest: RESTClient, prefix: string): Promise<string> {
  const name = `${prefix}-${randomUUID().slice(0, 8)}`;
  await rest.create(resourceOf(kinds.Namespace), { apiVersion: "v1", kind: "Namespace", metadata: { name } });
  return name;
}

/**
 * Resolves once `check()` is true, checking now and after every change to objects of `kind` in
 * `namespace`. Rejects after `timeoutMs` (a safety net for a failing test, not a timing assertion).
 */
export async function waitFor(
  config: RESTConfig,
  kind: Kind,
  namespace: string | undefined,
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  const rest = newRESTClient(config);
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const list = await rest.list(resourceOf(kind), { namespace, signal });
    if (await check()) return;
    const stream = await rest.watch(resourceOf(kind), {
      namespace,
      resourceVersion: list.metadata?.resourceVersion,
      signal,
    });
    try {
      for await (const _ of stream) if (await check()) return;
    } finally {
      await stream.return();
    }
    throw new Error(`the watch ended before ${what}`);
  } catch (err) {
    if (signal.aborted) throw new Error(`timed out waiting until ${what}`, { cause: err });
    throw err;
  } finally {
    await rest.close();
  }
}
