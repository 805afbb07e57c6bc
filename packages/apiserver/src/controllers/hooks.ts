// The server's reactions to changes, in one place: namespace existence and termination checks
// before creates, the namespace cleanup, CustomResourceDefinition lifecycle, admission
// policies' type checking and garbage collection.
import type { ChangeHooks, ServerContext } from "../handlers/context.js";
import type { ResourceDefinition } from "../registry/index.js";
import { forbidden, notFound } from "../status.js";
import type { Obj, StoredObject } from "../storage/index.js";
import { CrdController } from "./crd.js";
import { GarbageCollector } from "./gc.js";
import { NamespaceController } from "./namespace.js";
import { PolicyStatusController } from "./policy-status.js";
import { ServiceIPRepair } from "./service-ip-repair.js";

export interface HooksOptions {
  garbageCollection: boolean;
  /** See APIServerOptions.crdEstablishDelayMs. Default: 0. */
  crdEstablishDelayMs?: number;
  signal: AbortSignal;
  onError(err: unknown): void;
}

const isNamespace = (def: ResourceDefinition) => def.group === "" && def.kind === "Namespace" && !def.crdName;
const isCrd = (def: ResourceDefinition) =>
  def.group === "apiextensions.k8s.io" && def.kind === "CustomResourceDefinition";
const isService = (def: ResourceDefinition) => def.group === "" && def.kind === "Service" && !def.crdName;
const isIPAddress = (def: ResourceDefinition) =>
  def.group === "networking.k8s.io" && def.kind === "IPAddress";
const isPolicy = (def: ResourceDefinition) =>
  def.group === "admissionregistration.k8s.io" && def.kind === "ValidatingAdmissionPolicy";

export function createHooks(server: () => ServerContext, opts: HooksOptions): ChangeHooks {
  const namespaces = new NamespaceController(server, opts.signal, opts.onError);
  const crds = new CrdController(server, opts.signal, opts.onError, opts.crdEstablishDelayMs);
  const policies = new PolicyStatusController(server, opts.signal, opts.onError);
  const gc = opts.garbageCollection ? new GarbageCollector(server, opts.signal, opts.onError) : undefined;
  const serviceIPs = new ServiceIPRepair(server, opts.signal, opts.onError);
  return {
    serving() {
      serviceIPs.start();
    },
    beforeCreate(def, obj) {
      if (!def.namespaced) return;
      const ns = (obj.metadata as Obj).namespace as string;
      const stored = server().storage.get("/namespaces", ns);
      if (!stored) throw notFound({ group: "", resource: "namespaces", kind: "Namespace" }, ns);
      if ((stored.obj.metadata as Obj).deletionTimestamp) {
        throw forbidden(
          { group: def.group, resource: def.plural, kind: def.kind },
          String((obj.metadata as Obj).name ?? ""),
          `unable to create new content in namespace ${ns} because it is being terminated`,
        );
      }
    },
    afterWrite(def, stored: StoredObject) {
      const meta = stored.obj.metadata as Obj;
      if (isNamespace(def) && meta.deletionTimestamp) namespaces.touch(stored.name);
      if (isCrd(def)) crds.touch(stored.name);
      if (isPolicy(def)) policies.touch(stored.name);
      if (isService(def)) serviceIPs.serviceWritten(stored.obj);
      if (isIPAddress(def)) serviceIPs.ipAddressWritten(stored.obj);
      gc?.touch();
    },
    afterDelete(def, stored) {
      if (def.namespaced && stored.namespace) {
        const ns = server().storage.get("/namespaces", stored.namespace);
        if (ns && (ns.obj.metadata as Obj).deletionTimestamp) namespaces.touch(stored.namespace);
      }
      if (isCrd(def)) crds.removed(stored);
      if (def.crdName) crds.touch(def.crdName);
      gc?.touch();
    },
  };
}
