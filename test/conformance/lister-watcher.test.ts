// One contract for every ListerWatcher the cache builds: full objects, metadata only, and
// restricted by a label selector. Each lists in pages at a version and watches on from it.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ConfigMap } from "kubernetes-types/core/v1.js";
import { kinds } from "controller-runtime/api";
import { type ListerWatcher, listWatcherFor } from "controller-runtime/cache";
import { newRESTClient, type RESTClient, resourceOf } from "controller-runtime/rest";
import { testEnvironment } from "../support/environment.js";
import { configMap, newNamespace } from "../support/objects.js";

const CM = resourceOf(kinds.ConfigMap);
const env = testEnvironment();
let rest: RESTClient;
before(async () => {
  rest = newRESTClient(await env.start());
});
after(async () => {
  await rest.close();
  await env.stop();
});

interface Variant {
  lw(namespace: string): ListerWatcher<ConfigMap>;
  /** What an item of this variant holds beyond its metadata. */
  hasData: boolean;
}

/** Reads events until `done` holds (15 s at most). */
async function readUntil(
  lw: ListerWatcher<ConfigMap>,
  rv: string,
  done: (events: ConfigMap[]) => boolean,
): Promise<[type: string, object: ConfigMap][]> {
  const signal = AbortSignal.timeout(15_000);
  const stream = await lw.watch({ resourceVersion: rv, allowWatchBookmarks: true }, signal);
  const events: [string, ConfigMap][] = [];
  try {
    for await (const ev of stream) {
      assert.notEqual(ev.type, "ERROR");
      if (ev.type !== "BOOKMARK" && ev.type !== "ERROR") events.push([ev.type, ev.object]);
      if (done(events.map(([, o]) => o))) break;
    }
  } finally {
    await stream.return();
  }
  return events;
}

function listerWatcherContract(name: string, variant: Variant): void {
  describe(`ListerWatcher: ${name}`, () => {
    test("lists in pages at one version, every item once, named and versioned", async () => {
      const ns = await newNamespace(rest, "lw-list");
      for (let i = 0; i < 5; i++)
        await rest.create(CM, configMap(ns, `cm-${i}`, { v: `${i}` }, { app: "lw" }));
      const lw = variant.lw(ns);
      const signal = AbortSignal.timeout(15_000);
      const names: string[] = [];
      let page = await lw.list({ resourceVersion: "", limit: 2 }, signal);
      const first = page.metadata?.resourceVersion;
      for (;;) {
        for (const item of page.items) {
          names.push(item.metadata?.name ?? "");
          assert.ok(item.metadata?.resourceVersion, "each item has its resourceVersion");
          assert.equal(item.data !== undefined, variant.hasData);
        }
        const cont = page.metadata?.continue;
        if (!cont) break;
        page = await lw.list({ continue: cont, limit: 2 }, signal);
        assert.equal(page.metadata?.resourceVersion, first, "pages of one list share its version");
      }
      assert.deepEqual(names.sort(), ["cm-0", "cm-1", "cm-2", "cm-3", "cm-4"]);
    });

    test("a watch from the list's version sees what changed after it, in order, and nothing before", async () => {
      const ns = await newNamespace(rest, "lw-watch");
      await rest.create(CM, configMap(ns, "before", {}, { app: "lw" }));
      const lw = variant.lw(ns);
      const list = await lw.list({ resourceVersion: "" }, AbortSignal.timeout(15_000));
      const watching = readUntil(lw, list.metadata?.resourceVersion ?? "", (evs) => evs.length >= 3);
      await rest.create(CM, configMap(ns, "after", { v: "1" }, { app: "lw" }));
      await rest.patch(CM, "after", { data: { v: "2" } }, { namespace: ns, patchType: "merge" });
      await rest.delete(CM, "after", { namespace: ns });
      const events = await watching;
      assert.deepEqual(
        events.map(([type, o]) => `${type} ${o.metadata?.name}`),
        ["ADDED after", "MODIFIED after", "DELETED after"],
      );
      const rvs = events.map(([, o]) => BigInt(o.metadata?.resourceVersion ?? "0"));
      assert.ok(rvs[0] < rvs[1] && rvs[1] < rvs[2], "versions increase");
      assert.equal(events[1][1].data !== undefined, variant.hasData);
    });
  });
}

listerWatcherContract("full objects", {
  lw: (ns) => listWatcherFor(rest, kinds.ConfigMap, { namespace: ns }),
  hasData: true,
});
listerWatcherContract("metadata only", {
  lw: (ns) => listWatcherFor(rest, kinds.ConfigMap, { namespace: ns, metadataOnly: true }),
  hasData: false,
});
listerWatcherContract("label selector", {
  lw: (ns) => listWatcherFor(rest, kinds.ConfigMap, { namespace: ns, labelSelector: "app=lw" }),
  hasData: true,
});
