// Shared by the examples' tests: a namespace per test, and the Events about an object.
// (Waiting for a state is envtest's `eventually`.)
import { randomUUID } from "node:crypto";
import type { Event } from "kubernetes-types/core/v1.js";
import { kinds } from "../../src/api/index.js";
import type { Client } from "../../src/client/index.js";

export async function newNamespace(client: Client, prefix: string): Promise<string> {
  const name = `${prefix}-${randomUUID().slice(0, 8)}`;
  await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
  return name;
}

/** The reasons of the Events about the object `name` in `namespace` (in no particular order). */
export async function eventReasons(client: Client, namespace: string, name: string): Promise<string[]> {
  const events = await client.list(kinds.Event, { inNamespace: namespace });
  return events.items
    .filter((e: Readonly<Event>) => e.involvedObject.name === name)
    .map((e) => e.reason ?? "");
}
