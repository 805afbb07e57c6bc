// What an identity did during a test, as the embedded API server authorized it: the record turns
// into the smallest ClusterRole that allows it all (rules by API group and resource, verbs merged,
// as controller-gen writes them), and checks that given RBAC manifests grant it (for CI: "no rule
// in config/rbac grants `patch` on `deployments.apps` in namespace default"). What kube's
// bootstrap policy already gives every authenticated user (discovery, health, self reviews) is
// left out.
import { stringify } from "yaml";
import type { AccessAttributes, AccessAuthority, AccessDecider } from "./embedded-server.js";
import { type ManifestObject, readManifestObjects } from "../crd/manifest-files.js";

/** One request the server allowed. */
/** An rbac/v1 PolicyRule. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Access {
  user: string;
  groups: string[];
  verb: string;
  apiGroup: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
  /** Set for non-resource requests (`/metrics`). */
  path: string;
  resourceRequest: boolean;
}

/** An access no rule of the manifests grants, and how to say so. */
export interface MissingAccess {
  access: Access;
  message: string;
}

const baseline = { name: "system:envtest:baseline", groups: ["system:authenticated"] };

function describe(a: Access): string {
  if (!a.resourceRequest) return `\`${a.verb}\` on the path \`${a.path}\``;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const qualified = a.apiGroup ? `${resource}.${a.apiGroup}` : resource;
  const where = a.namespace ? ` in namespace ${a.namespace}` : " at the cluster scope";
  return `\`${a.verb}\` on \`${qualified}\`${where}`;
}

/** Records allowed requests of the server until `stop()`. */
export class AccessRecord {
  readonly #byKey = new Map<string, Access>();
  readonly #stop: () => void;
  readonly #authorization: AccessAuthority;
  readonly #rbacOver: (objects: readonly ManifestObject[]) => AccessDecider;

  /**
   * Records what `authorization` allows (`user`'s requests only, when given); `rbacOver` decides
   * as RBAC would over a set of manifests alone (the embedded server's, through envtest's door).
   */
  constructor(
    authorization: AccessAuthority,
    user: string | undefined,
    rbacOver: (objects: readonly ManifestObject[]) => AccessDecider,
  ) {
    this.#authorization = authorization;
    this.#rbacOver = rbacOver;
    this.#stop = authorization.onAccess((a: AccessAttributes) => {
      if (user !== undefined && a.user.name !== user) return;
      const access: Access = {
        user: a.user.name,
        groups: a.user.groups,
        verb: a.verb,
        apiGroup: a.apiGroup,
        resource: a.resource,
        subresource: a.subresource,
        namespace: a.namespace,
        name: a.name,
        path: a.resourceRequest ? "" : a.path,
        resourceRequest: a.resourceRequest,
      };
      const key = JSON.stringify([
        access.user,
        access.verb,
        access.apiGroup,
        access.resource,
        access.subresource,
        access.namespace,
        access.path,
      ]);
      if (!this.#byKey.has(key)) this.#byKey.set(key, access);
    });
  }

  stop(): void {
    this.#stop();
  }

  /** Each distinct (user, verb, group, resource, subresource, namespace, path) once. */
  accesses(user?: string): Access[] {
    return [...this.#byKey.values()].filter((a) => user === undefined || a.user === user);
  }

  /** The accesses that need a rule: those the bootstrap policy does not give every user already. */
  #needed(user?: string): Access[] {
    return this.accesses(user).filter(
      (a) => !this.#authorization.decide({ ...a, user: baseline, apiVersion: "" }).allowed,
    );
  }

  /** The rules that allow every recorded access of `user` (all users' when not given). */
  rules(user?: string): PolicyRule[] {
    const verbsByResource = new Map<string, Set<string>>();
    const urlVerbs = new Map<string, Set<string>>();
    for (const a of this.#needed(user)) {
      if (!a.resourceRequest) {
        urlVerbs.set(a.path, (urlVerbs.get(a.path) ?? new Set()).add(a.verb));
        continue;
      }
      const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
      const key = JSON.stringify([a.apiGroup, resource]);
      verbsByResource.set(key, (verbsByResource.get(key) ?? new Set()).add(a.verb));
    }
    // One rule per API group and verb set, as controller-gen merges them.
    const merged = new Map<string, PolicyRule & { resources: string[] }>();
    for (const [key, verbs] of [...verbsByResource].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const [group, resource] = JSON.parse(key) as [string, string];
      const sortedVerbs = [...verbs].sort();
      const ruleKey = JSON.stringify([group, sortedVerbs]);
      const rule = merged.get(ruleKey);
      if (rule) rule.resources.push(resource);
      else merged.set(ruleKey, { apiGroups: [group], resources: [resource], verbs: sortedVerbs });
    }
    const rules: PolicyRule[] = [...merged.values()];
    const byVerbs = new Map<string, string[]>();
    for (const [path, verbs] of [...urlVerbs].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const key = [...verbs].sort().join(",");
      byVerbs.set(key, [...(byVerbs.get(key) ?? []), path]);
    }
    for (const [verbs, urls] of byVerbs) rules.push({ nonResourceURLs: urls, verbs: verbs.split(",") });
    return rules;
  }

  /** The smallest ClusterRole allowing what `user` did. */
  clusterRole(name: string, user?: string): ManifestObject {
    return {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name },
      rules: this.rules(user),
    };
  }

  /** `clusterRole()` as YAML, ready for config/rbac/role.yaml. */
  clusterRoleYAML(name: string, user?: string): string {
    return `---\n${stringify(this.clusterRole(name, user))}`;
  }

  /**
   * What `user` did that the RBAC manifests (files, directories or objects) do not grant it,
   * judged as kube's RBAC authorizer would judge their roles and bindings.
   */
  missingFrom(manifests: readonly (string | ManifestObject)[], user: string): MissingAccess[] {
    const paths = manifests.filter((m): m is string => typeof m === "string");
    const objects = [
      ...manifests.filter((m): m is ManifestObject => typeof m !== "string"),
      ...readManifestObjects(paths, (o) => o.apiVersion === "rbac.authorization.k8s.io/v1"),
    ];
    const rbac = this.#rbacOver(objects);
    const where = paths.length > 0 ? paths.join(", ") : "the manifests";
    const missing: MissingAccess[] = [];
    for (const access of this.#needed(user)) {
      const decision = rbac.decide({
        ...access,
        user: { name: access.user, groups: access.groups },
        apiVersion: "",
      });
      if (decision.allowed) continue;
      missing.push({ access, message: `${where}: no rule grants ${access.user} ${describe(access)}` });
    }
    return missing;
  }
}
