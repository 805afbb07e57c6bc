// Custom resources between the served versions of their CRD. Objects are stored in the version
// they were written in; reading or updating them through another version converts them: with
// `conversion.strategy: None` by rewriting apiVersion, with `Webhook` by a ConversionReview to the
// CRD's conversion webhook (one review per object, as kube's storage decodes each list item).
import type { CustomResourceDefinition } from "kubernetes-types/apiextensions/v1.js";
import { callWebhook, type ServiceResolver, WebhookCallError } from "../admission/index.js";
import { crdStore } from "../controllers/crd.js";
import { apiVersionOfDef } from "../object/meta.js";
import type { ResourceDefinition } from "../registry/index.js";
import { ApiError, internalError } from "../status.js";
import type { Obj, Storage, StoredObject } from "../storage/index.js";
import { checkConverted, conversionReview, convertedObjects, pickConversionVersion } from "./review.js";
import { cloneJson } from "../object/deep-json.js";
import { stringifyJson } from "../object/deep-json.js";

export interface ConversionOptions {
  storage: Storage;
  serviceResolver: ServiceResolver;
  /** Aborted when the server stops. */
  signal: AbortSignal;
  /** How long a conversion webhook may take. Default: 30 s. */
  timeoutSeconds?: number;
}

export class Conversion {
  readonly #opts: ConversionOptions;

  constructor(opts: ConversionOptions) {
    this.#opts = opts;
  }

  #crd(def: ResourceDefinition): CustomResourceDefinition | undefined {
    if (!def.crdName) return undefined;
    return this.#opts.storage.get(crdStore, def.crdName)?.obj as CustomResourceDefinition | undefined;
  }

  /** Whether objects of `def`'s resource in other versions need the webhook to be read in `def`'s. */
  usesWebhook(def: ResourceDefinition): boolean {
    return this.#crd(def)?.spec.conversion?.strategy === "Webhook";
  }

  /** Converts objects (each in any served version) to `to`'s version; objects already there are kept. */
  async convert(to: ResourceDefinition, objects: readonly Readonly<Obj>[]): Promise<Obj[]> {
    const desired = apiVersionOfDef(to);
    const out = objects.map((o) => o as Obj);
    const pending = out.map((o, i) => ({ o, i })).filter(({ o }) => o.apiVersion !== desired);
    if (pending.length === 0) return out;
    const crd = this.#crd(to);
    if (crd?.spec.conversion?.strategy !== "Webhook") {
      for (const { o, i } of pending) out[i] = { ...cloneJson(o), apiVersion: desired };
      return out;
    }
    const sources = pending.map(({ o }) => o);
    const converted = await this.#callWebhook(crd, desired, sources);
    pending.forEach(({ i }, k) => {
      out[i] = converted[k];
    });
    return out;
  }

  /** Stored objects as `def`'s version serves them (a view: same key and version, converted content). */
  async views(def: ResourceDefinition, stored: readonly StoredObject[]): Promise<StoredObject[]> {
    const desired = apiVersionOfDef(def);
    if (!stored.some((s) => s.obj.apiVersion !== desired) || !this.usesWebhook(def)) return [...stored];
    const converted = await this.convert(
      def,
      stored.map((s) => s.obj),
    );
    return stored.map((s, i) =>
      converted[i] === s.obj ? s : { ...s, obj: converted[i], json: stringifyJson(converted[i]) },
    );
  }

  async #callWebhook(
    crd: CustomResourceDefinition,
    desired: string,
    objects: readonly Readonly<Obj>[],
  ): Promise<Obj[]> {
    const source = `${String(objects[0]?.apiVersion ?? "")}, Kind=${crd.spec.names.kind}`;
    // Not an apierror in kube: the generic Status (500, reason Unknown, the bare message).
    const fail = (why: string) => new ApiError(500, "", `conversion webhook for ${source} failed: ${why}`);
    const webhook = crd.spec.conversion?.webhook;
    const version = pickConversionVersion(webhook?.conversionReviewVersions);
    if (!webhook?.clientConfig || !version) {
      throw fail("no supported conversion review versions");
    }
    const review = conversionReview(version, desired, objects);
    let converted: Obj[];
    try {
      const body = await callWebhook({
        clientConfig: webhook.clientConfig,
        body: review.body,
        timeoutSeconds: this.#opts.timeoutSeconds ?? 30,
        resolver: this.#opts.serviceResolver,
        signal: this.#opts.signal,
      });
      converted = convertedObjects(version, review.uid, body);
    } catch (e) {
      if (e instanceof WebhookCallError || e instanceof Error) throw fail(e.message);
      throw e;
    }
    if (converted.length !== objects.length) {
      throw internalError(
        `conversion webhook for ${source} returned ${converted.length} objects, expected ${objects.length}`,
      );
    }
    converted.forEach((c, i) => {
      const problem = checkConverted(objects[i], c, desired);
      if (problem) {
        throw internalError(
          `conversion webhook for ${source} returned invalid converted object at index ${i}: ${problem}`,
        );
      }
    });
    return converted;
  }
}
