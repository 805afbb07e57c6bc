// Shared by the examples' tests: a namespace per test, and polling for a state with a deadline
// (the deadline is a safety net for a failing test, never a timing assertion).
import { randomUUID } from "node:crypto";
import type { Event } from "kubernetes-types/core/v1.js";
import { kinds } from "../../src/api/index.js";
import type { Client } from "../../src/client/index.js";

export async function newNamespace(client: Client, prefix: string): Promise<string> {
  const name = `${prefix}-${randomUUID().slice(0, 8)}`;
  await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
  return name;
}

/** Resolves with the first truthy value `probe` returns; rejects with `what` after `timeoutMs`. */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The reasons of the Events about the object `name` in `namespace` (in no particular order). */
export async function eventReasons(client: Client, namespace: string, name: string): Promise<string[]> {
  const events = await client.list(kinds.Event, { inNamespace: namespace });
  return events.items
    .filter((e: Readonly<Event>) => e.involvedObject.name === name)
    .map((e) => e.reason ?? "");
}
