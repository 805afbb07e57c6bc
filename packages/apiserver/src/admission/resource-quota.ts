// kube-apiserver's ResourceQuota admission plugin (k8s.io/apiserver/pkg/admission/plugin/
// resourcequota, CheckRequest), the last validating step of a write: a create (or an update that
// changes usage) in a namespace with ResourceQuotas is charged to every quota that limits what
// it uses, refused with 403 Forbidden when that would pass a quota's status.hard, and the charge
// recorded in the quotas' status.used (not for a dry run). A quota whose status the quota
// controller has not computed yet (no status.hard) limits nothing; one with status.hard but no
// usage for a limited resource refuses ("status unknown for quota").
// A namespace without quotas costs one lookup in an index of the quota store.
import { quota as q } from "controller-runtime/api";
import type { ServerContext } from "../handlers/context.js";
import { normalizeOrder } from "../object/meta.js";
import { cloneJson } from "../object/deep-json.js";
import type { ResourceDefinition } from "../registry/index.js";
import { forbidden } from "../status.js";
import type { Obj, StoredObject } from "../storage/index.js";

const QUOTA_STORE = "/resourcequotas";
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export interface QuotaAttributes {
  operation: "CREATE" | "UPDATE";
  /** "" for the object itself. */
  subresource: string;
  namespace: string;
  /** The object as it would be stored. */
  object: Obj;
  /** The stored object an update replaces. */
  oldObject?: Readonly<Obj>;
  dryRun: boolean;
}

/** Charges the write to the namespace's quotas, or throws kube's 403 Forbidden. */
export function admitResourceQuota(server: ServerContext, def: ResourceDefinition, a: QuotaAttributes): void {
  if (!def.namespaced || a.namespace === "") return;
  const stored = server.storage.list(QUOTA_STORE, a.namespace);
  if (stored.length === 0) return;
  if (q.isQuotaIgnored(def.group, def.plural)) return;
  const evaluator = q.quotaEvaluatorFor(def.group, def.plural);
  const old = a.oldObject as Obj | undefined;
  if (!evaluator.handles(a.operation, a.subresource, a.object, old)) return;
  const name = String((a.object.metadata as Obj | undefined)?.name ?? "");
  const refuse = (why: string) =>
    forbidden({ group: def.group, resource: def.plural, kind: def.kind }, name, why);

  const quotas = stored.map((s) => s.obj as Obj);
  const interesting: number[] = [];
  for (const [i, quota] of quotas.entries()) {
    if (!q.quotaMatches(quota, evaluator, a.object)) continue;
    const status = isObj(quota.status) ? quota.status : {};
    const hard = q.parseResourceList(status.hard);
    const restricted = evaluator.matchingResources(hard.keys());
    const quotaName = String((quota.metadata as Obj).name);
    const why = evaluator.constraints(restricted, a.object);
    if (why) throw refuse(`failed quota: ${quotaName}: ${why}`);
    const used = isObj(status.used) ? status.used : {};
    const unknown = restricted.filter((r) => !(r in used));
    if (unknown.length > 0) {
      throw refuse(`status unknown for quota: ${quotaName}, resources: ${[...restricted].sort().join(",")}`);
    }
    interesting.push(i);
  }
  if (interesting.length === 0) return;

  const now = server.now().getTime();
  const input = evaluator.usage(a.object, now);
  const negative = [...input].filter(([, v]) => v.n < 0n).map(([k]) => k);
  if (negative.length > 0)
    throw refuse(`quota usage is negative for resource(s): ${negative.sort().join(",")}`);
  const deltas = new Map<number, q.ResourceList>(interesting.map((i) => [i, input]));
  if (a.operation === "UPDATE") {
    if (!old) throw refuse("unable to get previous usage since prior version of object was not found");
    if ((old.metadata as Obj | undefined)?.resourceVersion) {
      const delta = q.subtractListsNonNegative(input, evaluator.usage(old, now));
      for (const i of interesting) if (q.quotaMatches(quotas[i]!, evaluator, old)) deltas.set(i, delta);
    }
  }

  const changed: { stored: StoredObject; used: q.ResourceList }[] = [];
  for (const i of interesting) {
    const delta = q.removeZeros(deltas.get(i)!);
    if (delta.size === 0) continue;
    const quota = quotas[i]!;
    const status = isObj(quota.status) ? quota.status : {};
    const hard = q.parseResourceList(status.hard);
    const used = q.parseResourceList(status.used);
    const requested = q.maskList(delta, hard.keys());
    const next = q.addLists(used, requested);
    if (a.subresource !== "status") {
      const exceeded = q.exceededNames(q.maskList(next, requested.keys()), hard);
      if (exceeded.length > 0) {
        throw refuse(
          `exceeded quota: ${String((quota.metadata as Obj).name)}, requested: ${q.prettyPrintList(q.maskList(requested, exceeded))}, used: ${q.prettyPrintList(q.maskList(used, exceeded))}, limited: ${q.prettyPrintList(q.maskList(hard, exceeded))}`,
        );
      }
    }
    if (!q.listsEqual(next, used)) changed.push({ stored: stored[i]!, used: next });
  }
  if (a.dryRun) return;
  const quotaDef = server.registry.lookup("", "v1", "resourcequotas");
  for (const { stored: current, used } of changed) {
    const next = cloneJson(current.obj) as Obj;
    next.status = { ...(isObj(next.status) ? next.status : {}), used: q.resourceListJSON(used) };
    const ordered = quotaDef ? normalizeOrder(quotaDef, next) : next;
    const written = server.storage.put(QUOTA_STORE, ordered);
    if (quotaDef) server.hooks.afterWrite(quotaDef, written, current);
  }
}
