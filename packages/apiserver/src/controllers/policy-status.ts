// kube's validatingadmissionpolicy-status controller: when a ValidatingAdmissionPolicy's
// generation passes its status.observedGeneration, type-check its expressions against the kinds
// it matches and write `status.typeChecking.expressionWarnings` with the new observedGeneration.
import { policyStore } from "../admission/policies.js";
import type { ServerContext } from "../handlers/context.js";
import { celPolicy } from "../lazy.js";
import { OBJECT_META } from "../schema/builtin-schemas.js";
import type { Schema } from "../schema/index.js";
import type { Obj } from "../storage/index.js";
import { Debouncer } from "./debouncer.js";

/** kube checks at most this many kinds per policy (maxTypesToCheck). */
const MAX_TYPES = 10;

interface Rule {
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
}

/** `group/version, Kind=kind`, Go's %v of a GroupVersionKind. */
const gvkText = (group: string, version: string, kind: string) => `${group}/${version}, Kind=${kind}`;

export class PolicyStatusController {
  readonly #server: () => ServerContext;
  readonly #pending: Debouncer<string>;
  readonly #onError: (err: unknown) => void;

  constructor(server: () => ServerContext, signal: AbortSignal, onError: (err: unknown) => void) {
    this.#server = server;
    this.#onError = onError;
    this.#pending = new Debouncer((names) => this.#sync(names), signal, onError);
  }

  touch(name: string): void {
    this.#pending.add(name);
  }

  #sync(names: string[]): void {
    if (!celPolicy.loaded) {
      // Policies stored before any CEL was needed (a restored store): check them once it is here.
      celPolicy.load().then(() => {
        for (const n of names) this.touch(n);
      }, this.#onError);
      return;
    }
    for (const name of names) this.#check(name);
  }

  #check(name: string): void {
    const server = this.#server();
    const stored = server.storage.get(policyStore, name);
    if (!stored) return;
    const meta = stored.obj.metadata as Obj;
    const status = (stored.obj.status ?? {}) as Obj;
    const generation = Number(meta.generation ?? 0);
    if (generation <= Number(status.observedGeneration ?? 0)) return;
    const next = JSON.parse(stored.json) as Obj;
    const expressionWarnings = this.#warnings(next.spec as Obj);
    next.status = {
      ...status,
      observedGeneration: generation,
      typeChecking: expressionWarnings.length > 0 ? { expressionWarnings } : {},
    };
    const def = server.registry.lookup("admissionregistration.k8s.io", "v1", "validatingadmissionpolicies");
    const written = server.storage.put(policyStore, next);
    if (def) server.hooks.afterWrite(def, written, stored);
  }

  #warnings(spec: Obj): { fieldRef: string; warning: string }[] {
    const kinds = this.#kinds(spec);
    if (kinds.length === 0) return [];
    const params = this.#paramsSchema(spec.paramKind as Obj | undefined);
    const variables = ((spec.variables as Obj[] | undefined) ?? []).map((v) => String(v.name ?? ""));
    const { typeCheckIssues } = celPolicy.get();
    const check = (expression: string): string | undefined => {
      const results = kinds
        .map((k) => {
          const issues = typeCheckIssues(expression, { object: k.schema, params, variables });
          return issues === undefined ? undefined : `${k.gvk}: ${issues}\n`;
        })
        .filter((r) => r !== undefined);
      return results.length > 0 ? results.join("\n") : undefined;
    };
    const out: { fieldRef: string; warning: string }[] = [];
    ((spec.validations as Obj[] | undefined) ?? []).forEach((v, i) => {
      for (const field of ["expression", "messageExpression"] as const) {
        const text = v[field];
        if (typeof text !== "string" || text === "") continue;
        const warning = check(text);
        if (warning) out.push({ fieldRef: `spec.validations[${i}].${field}`, warning });
      }
    });
    return out;
  }

  /** The kinds a policy's resourceRules name exactly, with their schemas (typesToCheck). */
  #kinds(spec: Obj): { gvk: string; schema: Schema; sort: string }[] {
    const server = this.#server();
    const rules = ((spec.matchConstraints as Obj | undefined)?.resourceRules ?? []) as Rule[];
    const found = new Map<string, { gvk: string; schema: Schema; sort: string }>();
    for (const rule of rules) {
      const groups = rule.apiGroups ?? [];
      const versions = rule.apiVersions ?? [];
      if (groups.length === 0 || groups.some((g) => g.includes("*"))) continue;
      if (versions.length === 0 || versions.some((v) => v.includes("*"))) continue;
      const resources = (rule.resources ?? []).filter((r) => !/[*/]/.test(r));
      for (const group of [...groups].sort()) {
        for (const version of [...versions].sort()) {
          for (const resource of [...resources].sort()) {
            const def = server.registry.lookup(group, version, resource);
            if (!def?.schema) continue;
            const key = `${group}\u0000${version}\u0000${def.kind}`;
            found.set(key, {
              gvk: gvkText(group, version, def.kind),
              schema: this.#withMetadata(def.schema as Schema),
              sort: key,
            });
            if (found.size === MAX_TYPES) return sorted(found);
          }
        }
      }
    }
    return sorted(found);
  }

  #paramsSchema(paramKind: Obj | undefined): Schema | undefined {
    if (!paramKind) return undefined;
    const apiVersion = String(paramKind.apiVersion ?? "");
    const [group, version] = apiVersion.includes("/") ? apiVersion.split("/", 2) : ["", apiVersion];
    const def = this.#server()
      .registry.all()
      .find((d) => d.group === group && d.version === version && d.kind === paramKind.kind);
    return def?.schema ? this.#withMetadata(def.schema as Schema) : undefined;
  }

  /** A kind's schema with ObjectMeta's fields under `metadata` (a CRD's schema declares none). */
  #withMetadata(schema: Schema): Schema {
    const metadata = schema.properties?.metadata;
    if (metadata && (metadata.$ref !== undefined || metadata.properties !== undefined)) return schema;
    const meta = this.#server().objectMetaSchema();
    return {
      ...schema,
      properties: { ...schema.properties, metadata: { $ref: `#/definitions/${OBJECT_META}` } },
      definitions: { ...schema.definitions, ...meta.definitions },
    };
  }
}

function sorted<T extends { sort: string }>(found: Map<string, T>): T[] {
  return [...found.values()].sort((a, b) => (a.sort < b.sort ? -1 : a.sort > b.sort ? 1 : 0));
}
