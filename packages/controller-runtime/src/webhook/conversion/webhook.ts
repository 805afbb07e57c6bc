// The CRD conversion webhook, hub and spoke as in controller-runtime: per kind, one version is the
// hub and every other version (a spoke) converts to and from it. hub → spoke and spoke → hub take
// one step, spoke → spoke goes through the hub. One webhook serves every kind, on `/convert`.
import type { IncomingMessage, ServerResponse } from "node:http";
import { isPanic } from "../../controller/errors.js";
import { parseAPIVersion, type KubeObject, type Unstructured } from "../../api/index.js";
import { cloneJSON } from "../../patch/index.js";
import type { Webhook, WebhookRequestContext } from "../handler.js";
import { readJsonBody, writeJson } from "../internal/read-body.js";
import {
  type ConversionRequest,
  type ConversionResponse,
  type ConversionReview,
  conversionGroup,
  conversionReviewVersions,
} from "./types.js";

/** Converts one spoke version to and from the hub. Return a new object or change the one given. */
export interface SpokeConverter<
  Spoke extends KubeObject = Unstructured,
  Hub extends KubeObject = Unstructured,
> {
  toHub(obj: Spoke): Hub | Promise<Hub>;
  fromHub(hub: Hub): Spoke | Promise<Spoke>;
}

/** How the versions of one kind convert. */
export interface ConversionSpec<Hub extends KubeObject = Unstructured> {
  /** The hub version: `v1`. */
  hub: string;
  /** A converter for every other served version, by version: `{ v1beta1: { toHub, fromHub } }`. */
  spokes: Record<string, SpokeConverter<KubeObject, Hub>>;
}

/** A kind's identity across versions. A `Kind` descriptor fits. */
export interface GroupKind {
  group: string;
  kind: string;
}

/** A conversion failed: an unknown kind or version, or a converter threw. */
export class ConversionError extends Error {
  override readonly name = "ConversionError";
  readonly code = "ERR_WEBHOOK_CONVERSION";
}

export interface ConversionWebhook extends Webhook {
  /** Registers how `groupKind` converts; throws when it is registered already or the spec is wrong. */
  registerConversion<Hub extends KubeObject>(groupKind: GroupKind, spec: ConversionSpec<Hub>): void;
  /** Whether `groupKind` has converters. */
  isConvertible(groupKind: GroupKind): boolean;
  /** Converts every object of a request; a failure of any object fails the whole response. */
  convert(req: ConversionRequest): Promise<ConversionResponse>;
}

// Marks the objects newConversionWebhook makes, so the builder can add kinds to a registered one.
const conversionWebhookBrand = Symbol("ConversionWebhook");

/** Whether `h` was made by newConversionWebhook. */
export function isConversionWebhook(h: unknown): h is ConversionWebhook {
  return (
    typeof h === "object" &&
    h !== null &&
    (h as { [conversionWebhookBrand]?: boolean })[conversionWebhookBrand] === true
  );
}

/** A conversion webhook with no kinds yet; register it on `/convert`. */
export function newConversionWebhook(): ConversionWebhook {
  const specs = new Map<string, ConversionSpec>();
  const keyOf = (gk: GroupKind) => `${gk.kind}.${gk.group}`;

  function registerConversion<Hub extends KubeObject>(gk: GroupKind, spec: ConversionSpec<Hub>): void {
    const key = keyOf(gk);
    if (specs.has(key)) throw new ConversionError(`conversion for ${key} is already registered`);
    if (!spec.hub) throw new ConversionError(`conversion for ${key}: name the hub version`);
    if (Object.hasOwn(spec.spokes, spec.hub)) {
      throw new ConversionError(`conversion for ${key}: the hub version ${spec.hub} cannot also be a spoke`);
    }
    for (const [version, c] of Object.entries(spec.spokes)) {
      if (typeof c?.toHub !== "function" || typeof c?.fromHub !== "function") {
        throw new ConversionError(`conversion for ${key}: spoke ${version} needs both toHub and fromHub`);
      }
    }
    specs.set(key, spec as unknown as ConversionSpec);
  }

  async function convertObject(obj: KubeObject, desiredAPIVersion: string): Promise<KubeObject> {
    if (typeof obj !== "object" || obj === null || !obj.apiVersion || !obj.kind) {
      throw new ConversionError("an object to convert has no apiVersion or kind");
    }
    const src = parseAPIVersion(obj.apiVersion);
    const dst = parseAPIVersion(desiredAPIVersion);
    const gk = `${obj.kind}.${src.group}`;
    if (src.group !== dst.group) {
      throw new ConversionError(`cannot convert ${gk} to ${desiredAPIVersion}: the groups differ`);
    }
    const spec = specs.get(gk);
    if (!spec) {
      throw new ConversionError(`no conversion is registered for ${gk}; register it with registerConversion`);
    }
    const known = () =>
      `known versions: ${spec.hub} (hub), ${Object.keys(spec.spokes).join(", ") || "no spokes"}`;
    const isKnown = (v: string) => v === spec.hub || Object.hasOwn(spec.spokes, v);
    for (const v of [src.version, dst.version]) {
      if (!isKnown(v)) {
        throw new ConversionError(
          `cannot convert ${gk} from ${src.version} to ${dst.version}: no converter for version ${v} (${known()})`,
        );
      }
    }
    let cur: KubeObject = cloneJSON(obj);
    // An object already in the desired version is returned as is (controller-runtime refuses it;
    // the API server does not send those, but other callers may).
    if (src.version !== dst.version) {
      if (src.version !== spec.hub)
        cur = await step(
          () => spec.spokes[src.version].toHub(cur),
          cur,
          `${src.version} to the hub ${spec.hub}`,
          gk,
        );
      if (dst.version !== spec.hub)
        cur = await step(
          () => spec.spokes[dst.version].fromHub(cur as Unstructured),
          cur,
          `the hub ${spec.hub} to ${dst.version}`,
          gk,
        );
    }
    return { ...cur, apiVersion: desiredAPIVersion, kind: obj.kind };
  }

  async function convert(
    req: ConversionRequest,
    onPanic?: (thrown: unknown) => void,
  ): Promise<ConversionResponse> {
    try {
      if (typeof req.desiredAPIVersion !== "string" || req.desiredAPIVersion === "") {
        throw new ConversionError("the conversion request has no desiredAPIVersion");
      }
      const objects = Array.isArray(req.objects) ? req.objects : [];
      const convertedObjects: KubeObject[] = [];
      for (const obj of objects) convertedObjects.push(await convertObject(obj, req.desiredAPIVersion));
      return { uid: req.uid, convertedObjects, result: { status: "Success" } };
    } catch (err) {
      // A converter's bug (Go's panic) is counted; a converter's own refusal is not.
      const thrown = err instanceof ConversionError && err.cause !== undefined ? err.cause : undefined;
      if (thrown !== undefined && isPanic(thrown)) onPanic?.(thrown);
      return {
        uid: req.uid,
        convertedObjects: [],
        result: { status: "Failure", message: (err as Error).message ?? String(err) },
      };
    }
  }

  async function serveHTTP(
    req: IncomingMessage,
    res: ServerResponse,
    ctx: WebhookRequestContext,
  ): Promise<void> {
    const log = ctx.logger.withName("conversion");
    const body = await readJsonBody(req, res);
    const bad = (message: string) => {
      log.error(new Error(message), "failed to read conversion request");
      res.writeHead(400, { "content-type": "text/plain; charset=utf-8" });
      res.end(`${message}\n`);
    };
    if (!body.ok) return bad(body.message);
    const review = body.body as ConversionReview;
    if (typeof review !== "object" || review === null || Array.isArray(review))
      return bad("the body is not a ConversionReview");
    const apiVersion = review.apiVersion ?? `${conversionGroup}/v1`;
    if (
      (review.kind !== undefined && review.kind !== "ConversionReview") ||
      !acceptedVersions.has(apiVersion)
    ) {
      return bad(
        `unexpected ConversionReview kind: apiVersion=${JSON.stringify(review.apiVersion)} kind=${JSON.stringify(review.kind)}`,
      );
    }
    const request = review.request;
    if (typeof request !== "object" || request === null) return bad("conversion request is nil");
    if (typeof request.uid !== "string" || request.uid === "")
      return bad("the conversion request has no uid");
    const response = await convert(request, (thrown) => {
      ctx.metrics.conversionPanics.inc();
      log.error(thrown, "converter panicked", { request: request.uid });
    });
    if (response.result.status === "Failure") {
      log.error(new Error(response.result.message), "failed to convert", { request: request.uid });
    }
    writeJson(res, 200, { apiVersion, kind: "ConversionReview", response } satisfies ConversionReview);
  }

  const hook: ConversionWebhook = {
    registerConversion,
    isConvertible: (gk) => specs.has(keyOf(gk)),
    convert,
    serveHTTP,
  };
  Object.defineProperty(hook, conversionWebhookBrand, { value: true });
  return hook;
}

const acceptedVersions = new Set<string>(conversionReviewVersions.map((v) => `${conversionGroup}/${v}`));

async function step(
  fn: () => KubeObject | Promise<KubeObject>,
  input: KubeObject,
  what: string,
  gk: string,
): Promise<KubeObject> {
  let out: KubeObject;
  try {
    out = await fn();
  } catch (err) {
    throw new ConversionError(`${gk} failed to convert from ${what}: ${(err as Error)?.message ?? err}`, {
      cause: err,
    });
  }
  if (typeof out !== "object" || out === null)
    throw new ConversionError(`${gk}: the converter from ${what} returned no object`);
  // Converters that build a fresh object keep the identity the API server insists on.
  return out.metadata === undefined ? { ...out, metadata: input.metadata } : out;
}
