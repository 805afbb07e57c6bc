// The fake client (controller-runtime's client/fake): a Client for unit tests of reconcilers that
// answers from an embedded API server of its own, in this process, without HTTP. Unlike
// controller-runtime's, which keeps objects in a tracker and skips validation and defaulting,
// every request goes through the server's router and handlers: validation (422), defaulting,
// admission, server-side apply, selectors, resourceVersions and conflicts, status subresources
// and CRDs are the server's, as envtest would answer them, at a fraction of the cost.
import { generateKeyPairSync } from "node:crypto";
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import { type Kind, type KubeObject, kinds } from "controller-runtime/api";
import type { IndexerFunc } from "controller-runtime/cache";
import { type ClientOptions, newWithWatch, type WithWatch } from "controller-runtime/client";
import { newRESTClient, type RESTClient, type RESTConfig, resourceOf } from "controller-runtime/rest";
import { type APIServerOptions, newServerCore, type ServerCore } from "../server.js";
import type { Storage } from "../storage/index.js";
import { FieldIndexes } from "./field-indexes.js";
import { checkFuncs, InterceptorClient, type InterceptorFuncs, newInterceptorClient } from "./interceptor.js";
import { IN_PROCESS_HOST, inProcessTransport } from "./transport.js";

/** Options of the fake client's server: those of `startAPIServer` that do not concern listening. */
export type FakeServerOptions = Omit<
  APIServerOptions,
  "port" | "host" | "http2" | "kubeconfigPath" | "certificateAuthority" | "adminToken" | "users"
>;

/** What the client may be made with, as `newClient` takes it (no cache: reads go to the server). */
export type FakeClientOptions = Pick<ClientOptions, "fieldOwner" | "fieldValidation" | "dryRun">;

/** The fake client: a `WithWatch` whose server lives in this process. */
export interface FakeClient extends WithWatch {
  /** The server's storage: every object it holds (give it to `withServerOptions({ storage })` to start from it). */
  readonly storage: Storage;
  /** A REST client to the same server, for requests the Client has no verb for (discovery, raw paths). */
  readonly restClient: RESTClient;
  /** Ends watches and the server's background work. The client cannot be used afterwards. */
  close(): Promise<void>;
}

/** A fake client holding `objects` (controller-runtime's `fake.NewFakeClient`). */
export function newFakeClient(...objects: KubeObject[]): Promise<FakeClient> {
  return fakeClientBuilder()
    .withObjects(...objects)
    .build();
}

/** A builder of fake clients (controller-runtime's `fake.NewClientBuilder()`). */
export function fakeClientBuilder(): FakeClientBuilder {
  return new FakeClientBuilder();
}

export class FakeClientBuilder {
  readonly #objects: KubeObject[] = [];
  readonly #crds: CustomResourceDefinition[] = [];
  readonly #indexes = new FieldIndexes();
  #funcs: InterceptorFuncs | undefined;
  #serverOptions: FakeServerOptions = {};
  #clientOptions: FakeClientOptions = {};

  /**
   * Objects the client starts with, created through the server in order (so defaulted and
   * validated: an invalid one fails `build()`). The namespaces they name are created when
   * missing; a `status` is written through the status subresource when the kind has one.
   * `resourceVersion` is dropped, as kube refuses it on create.
   */
  withObjects(...objects: KubeObject[]): this {
    for (const o of objects) {
      if (!o || typeof o !== "object" || !o.apiVersion || !o.kind) {
        throw new TypeError(
          `withObjects: ${JSON.stringify(o?.metadata?.name ?? o)} has no apiVersion and kind; set them (e.g. { apiVersion: "v1", kind: "ConfigMap" })`,
        );
      }
    }
    this.#objects.push(...objects);
    return this;
  }

  /**
   * CRDs to serve before the objects are created (custom resources need them; read manifests
   * with `readCRDs(paths, true)` from controller-runtime/envtest). A CRD's `subresources.status`
   * gives its kind the status subresource, so no `WithStatusSubresource` is needed.
   */
  withCRDs(...crds: CustomResourceDefinition[]): this {
    this.#crds.push(...crds);
    return this;
  }

  /**
   * An index for `matchingFields` on `field` of `kind` (controller-runtime's fake `WithIndex`, the
   * Manager's `indexField`): lists of `kind` match it with `extract`. Fields without an index go
   * to the server, which answers its own field selectors and refuses others (400).
   */
  withIndex<T extends KubeObject>(kind: Kind<T>, field: string, extract: IndexerFunc<T>): this {
    this.#indexes.add(kind, field, extract);
    return this;
  }

  /** Functions called instead of the client's verbs (see `InterceptorFuncs`); replaces earlier ones. */
  withInterceptorFuncs(funcs: InterceptorFuncs): this {
    checkFuncs(funcs);
    this.#funcs = funcs;
    return this;
  }

  /** Options of the server behind the client (garbage collection, a CRD establish delay, a storage). */
  withServerOptions(opts: FakeServerOptions): this {
    this.#serverOptions = { ...this.#serverOptions, ...opts };
    return this;
  }

  /** Options of the client (a field owner, field validation, dry run), as `newClient` takes them. */
  withClientOptions(opts: FakeClientOptions): this {
    this.#clientOptions = { ...this.#clientOptions, ...opts };
    return this;
  }

  /** A new client with a server of its own, holding the CRDs and objects given. */
  async build(): Promise<FakeClient> {
    const transportRef: { destroy?: () => Promise<void> } = {};
    const opts: APIServerOptions = {
      ...this.#serverOptions,
      serviceAccountSigningKey: this.#serverOptions.serviceAccountSigningKey ?? sharedSigningKey(),
    };
    const core = newServerCore(opts, () => {
      void transportRef.destroy?.();
    });
    // The server's own controllers, as a serving server runs them (the default ServiceCIDR that
    // Services' addresses come from).
    core.context.hooks.serving?.();
    const transport = inProcessTransport(core);
    transportRef.destroy = () => transport.destroy();
    const config: RESTConfig = { host: IN_PROCESS_HOST, tls: {}, auth: {}, source: "fake client" };
    const restClient = newRESTClient(config, { transport });
    const base = newWithWatch(config, { ...this.#clientOptions, restClient });
    const stop = async () => {
      core.stopping.abort();
      await transport.destroy();
    };
    try {
      await seed(base, restClient, core.context.registry, this.#crds, this.#objects);
    } catch (err) {
      await stop();
      throw err;
    }
    const indexes = this.#indexes;
    const indexed =
      indexes.size > 0
        ? newInterceptorClient(base, { list: (c, kind, opts) => indexes.list(c, kind, opts) })
        : base;
    const client = new InterceptorClient(indexed, { ...this.#funcs }, stop);
    return Object.assign(client, { storage: core.storage, restClient }) as FakeClient;
  }
}

const crdResource = resourceOf(kinds.CustomResourceDefinition);

let signingKey: string | undefined;

/**
 * One ServiceAccount signing key for every fake client of the process: a new EC key per client
 * was an eighth of the time a build took, and no test tells keys of two fakes apart.
 */
function sharedSigningKey(): string {
  signingKey ??= generateKeyPairSync("ec", { namedCurve: "P-256" })
    .privateKey.export({ type: "pkcs8", format: "pem" })
    .toString();
  return signingKey;
}

type Registry = ServerCore["context"]["registry"];

/** Creates the CRDs, the namespaces the objects need, then the objects (and their status). */
async function seed(
  client: WithWatch,
  rest: RESTClient,
  registry: Registry,
  crds: readonly CustomResourceDefinition[],
  objects: readonly KubeObject[],
): Promise<void> {
  for (const crd of crds) {
    try {
      await rest.create(crdResource, crd);
    } catch (err) {
      throw seedError("CRD", crd, err);
    }
  }
  const namespaces = new Set((await client.list(kinds.Namespace)).items.map((n) => n.metadata?.name ?? ""));
  for (const obj of objects) {
    const kind = await kindOf(client, obj);
    const ns = obj.metadata?.namespace;
    if (kind.namespaced && ns && !namespaces.has(ns)) {
      await client.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
      namespaces.add(ns);
    }
    const { resourceVersion: _, ...metadata } = obj.metadata ?? {};
    let created: KubeObject;
    try {
      created = await client.create({ ...obj, metadata });
    } catch (err) {
      throw seedError("object", obj, err);
    }
    if (kind.kind === "Namespace") namespaces.add(created.metadata?.name ?? "");
    const status = (obj as { status?: unknown }).status;
    const def = registry.lookup(kind.group, kind.version, kind.plural);
    if (
      status !== undefined &&
      def?.statusSubresource &&
      JSON.stringify(status) !== JSON.stringify((created as { status?: unknown }).status)
    ) {
      try {
        await client.status().update({ ...created, status } as KubeObject);
      } catch (err) {
        throw seedError("status of", obj, err);
      }
    }
  }
}

async function kindOf(client: WithWatch, obj: KubeObject): Promise<Kind> {
  try {
    return await client.kindFor(obj);
  } catch (err) {
    throw seedError("object", obj, err);
  }
}

function seedError(what: string, obj: KubeObject, err: unknown): Error {
  const name = obj.metadata?.namespace
    ? `${obj.metadata.namespace}/${obj.metadata?.name}`
    : obj.metadata?.name;
  return new Error(
    `fake client: the ${what} ${obj.kind} ${name ?? "(no name)"} could not be created: ${(err as Error)?.message ?? err}; ` +
      "fix it in withObjects/withCRDs (objects are validated as the API server validates them)",
    { cause: err },
  );
}
