// What kube-controller-manager puts in every namespace, simulated: the `default` ServiceAccount
// (its service-account controller) and the `kube-root-ca.crt` ConfigMap with the CA that signs
// the API server's certificate (its root-ca-cert-publisher), made again when deleted and set back
// when changed. Pods name the `default` ServiceAccount unless told another; clients in a Pod
// verify the API server with that CA.
import type { ConfigMap, Namespace, ServiceAccount } from "kubernetes-types/core/v1.js";
import { isDeepStrictEqual } from "node:util";
import { type DeepReadonly, deepCopy, type Kind, type KubeObject, kinds } from "../../api/index.js";
import { controllerManagedBy } from "../../builder/index.js";
import type { Client, ClientReader } from "../../client/index.js";
import { enqueueRequestsFromMapFunc } from "../../handler/index.js";
import type { Manager } from "../../manager/index.js";
import type { ReconcileContext, Reconciler, Request } from "../../reconcile/index.js";
import { isAlreadyExists, isForbidden, isNotFound } from "../../rest/index.js";

const ROOT_CA = "kube-root-ca.crt";
const DESCRIPTION =
  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.";

export function setupNamespaceDefaults(mgr: Manager, caPem: string | undefined): void {
  const toNamespace = (name: string) =>
    enqueueRequestsFromMapFunc<KubeObject>((o) =>
      o?.metadata?.name === name ? [{ namespace: "", name: o.metadata.namespace ?? "" }] : [],
    );
  controllerManagedBy(mgr)
    .named("simulated-namespace-defaults")
    .for(kinds.Namespace)
    .watches(kinds.ServiceAccount, toNamespace("default"))
    .watches(kinds.ConfigMap, toNamespace(ROOT_CA))
    .complete(new NamespaceDefaults(mgr.getClient(), mgr.getAPIReader(), caPem));
}

class NamespaceDefaults implements Reconciler {
  constructor(
    private readonly client: Client,
    private readonly reader: ClientReader,
    private readonly caPem: string | undefined,
  ) {}

  async reconcile(req: Request, { signal }: ReconcileContext): Promise<void> {
    let ns: DeepReadonly<Namespace>;
    try {
      ns = await this.reader.get(kinds.Namespace, req, { signal });
    } catch (err) {
      if (isNotFound(err)) return;
      throw err;
    }
    if (ns.metadata?.deletionTimestamp) return;
    const namespace = req.name;
    await this.ensure(
      kinds.ServiceAccount,
      { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "default", namespace } },
      (): ServiceAccount | undefined => undefined,
      signal,
    );
    if (this.caPem === undefined) return;
    const data = { "ca.crt": this.caPem };
    await this.ensure(
      kinds.ConfigMap,
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: ROOT_CA, namespace, annotations: { "kubernetes.io/description": DESCRIPTION } },
        data,
      },
      (current): ConfigMap | undefined =>
        isDeepStrictEqual(current.data ?? {}, data) ? undefined : { ...deepCopy(current), data },
      signal,
    );
  }

  /** Creates `want` if missing; else writes what `fix` makes of it, if anything. */
  private async ensure<T extends KubeObject>(
    kind: Kind<T>,
    want: T,
    fix: (current: DeepReadonly<T>) => T | undefined,
    signal: AbortSignal,
  ): Promise<void> {
    let current: DeepReadonly<T> | undefined;
    try {
      current = await this.reader.get(
        kind,
        { namespace: want.metadata?.namespace ?? "", name: want.metadata?.name ?? "" },
        { signal },
      );
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    try {
      if (!current) await this.client.create<T>(want, { signal });
      else {
        const next = fix(current);
        if (next) await this.client.update<T>(next, { signal });
      }
    } catch (err) {
      // Made meanwhile, or the namespace began terminating: nothing to do.
      if (isAlreadyExists(err) || isForbidden(err) || isNotFound(err)) return;
      throw err;
    }
  }
}
