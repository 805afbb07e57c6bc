// The server's side of the one door envtest opens (envtest/embedded-server.ts): start a server,
// and RBAC decisions over a set of manifests for envtest's AccessRecord. Nothing else of this
// package is imported by the library.
import type { EmbeddedServerModule } from "controller-runtime/envtest";
import { RBACAuthorizer } from "./authz/rbac.js";
import { type APIServerOptions, startAPIServer } from "./server.js";
import { Storage } from "./storage/index.js";

export const embeddedServer: EmbeddedServerModule = {
  // The door's options are this server's, with its storage opaque to envtest.
  start: (opts) => startAPIServer(opts as APIServerOptions),
  rbacOver(objects) {
    const storage = new Storage();
    for (const o of objects) {
      const meta = (o.metadata ?? {}) as { name?: string; namespace?: string };
      const kind = String(o.kind ?? "");
      const clusterScoped = kind === "ClusterRole" || kind === "ClusterRoleBinding";
      const namespace = clusterScoped ? undefined : (meta.namespace ?? "default");
      storage.put(`rbac.authorization.k8s.io/${kind.toLowerCase()}s`, {
        ...o,
        metadata: { ...meta, namespace },
      });
    }
    const rbac = new RBACAuthorizer(storage);
    return { decide: (a) => rbac.authorize(a) };
  },
};
