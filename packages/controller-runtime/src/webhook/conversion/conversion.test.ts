// The conversion webhook over real HTTPS: a kind with a hub and two spokes, converted every way.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { defineKind, type KubeObject } from "../../api/index.js";
import { webhookFor } from "../builder.js";
import { post, type RunningServer, startServer } from "../../../../../test/support/webhook-server.js";
import { convertPath } from "../paths.js";
import { newWebhookServer } from "../server.js";
import type { ConversionReview } from "./types.js";
import { type ConversionSpec, isConversionWebhook, newConversionWebhook } from "./webhook.js";

// v1 (hub): image split in two; v1beta1: image as one string; v1alpha1: also `size` for replicas.
interface AppV1 extends KubeObject {
  spec: { replicas: number; image: { name: string; tag: string } };
}
interface AppV1beta1 extends KubeObject {
  spec: { replicas: number; image: string };
}
interface AppV1alpha1 extends KubeObject {
  spec: { size: number; image: string };
}

const App = defineKind<AppV1>({ group: "apps.example.com", version: "v1", kind: "App" });

const split = (image: string) => {
  const i = image.lastIndexOf(":");
  return i < 0 ? { name: image, tag: "latest" } : { name: image.slice(0, i), tag: image.slice(i + 1) };
};

const appConversion: ConversionSpec<AppV1> = {
  hub: "v1",
  spokes: {
    v1beta1: {
      toHub: (o: AppV1beta1): AppV1 => ({
        ...o,
        spec: { replicas: o.spec.replicas, image: split(o.spec.image) },
      }),
      fromHub: (h: AppV1): AppV1beta1 => ({
        ...h,
        spec: { replicas: h.spec.replicas, image: `${h.spec.image.name}:${h.spec.image.tag}` },
      }),
    },
    v1alpha1: {
      toHub(o: AppV1alpha1): AppV1 {
        if (o.spec.size < 0) throw new Error("size cannot be negative");
        // A fresh object without metadata: the webhook keeps the original's.
        return { spec: { replicas: o.spec.size, image: split(o.spec.image) } };
      },
      fromHub: (h: AppV1): AppV1alpha1 => ({
        ...h,
        spec: { size: h.spec.replicas, image: `${h.spec.image.name}:${h.spec.image.tag}` },
      }),
    },
  },
};

const metadata = { name: "a", namespace: "ns", uid: "u-1", resourceVersion: "7", labels: { x: "y" } };
const v1: AppV1 = {
  apiVersion: "apps.example.com/v1",
  kind: "App",
  metadata,
  spec: { replicas: 2, image: { name: "nginx", tag: "1.27" } },
};
const v1beta1: AppV1beta1 = {
  apiVersion: "apps.example.com/v1beta1",
  kind: "App",
  metadata,
  spec: { replicas: 2, image: "nginx:1.27" },
};
const v1alpha1: AppV1alpha1 = {
  apiVersion: "apps.example.com/v1alpha1",
  kind: "App",
  metadata,
  spec: { size: 2, image: "nginx:1.27" },
};

function review(
  desiredAPIVersion: string,
  objects: KubeObject[],
  apiVersion = "apiextensions.k8s.io/v1",
): ConversionReview {
  return { apiVersion, kind: "ConversionReview", request: { uid: "conv-1", desiredAPIVersion, objects } };
}

describe("conversion webhook", () => {
  let run: RunningServer;
  before(async () => {
    run = await startServer((server) => {
      webhookFor(server, App).withConverter(appConversion).complete();
    });
  });
  after(() => run.stop());

  async function convert(
    desired: string,
    objects: KubeObject[],
    apiVersion?: string,
  ): Promise<ConversionReview> {
    const res = await post(run, convertPath, review(desired, objects, apiVersion));
    assert.equal(res.status, 200, res.text);
    const body = res.json<ConversionReview>();
    assert.equal(body.kind, "ConversionReview");
    assert.equal(body.response?.uid, "conv-1");
    return body;
  }

  const cases: Array<[string, KubeObject, KubeObject]> = [
    ["hub to spoke", v1, v1beta1],
    ["spoke to hub", v1beta1, v1],
    ["hub to the other spoke", v1, v1alpha1],
    ["the other spoke to hub", v1alpha1, v1],
    ["spoke to spoke through the hub", v1alpha1, v1beta1],
    ["spoke to spoke the other way", v1beta1, v1alpha1],
  ];
  for (const [name, from, to] of cases) {
    test(`${name}: ${from.apiVersion} → ${to.apiVersion}`, async () => {
      const body = await convert(to.apiVersion as string, [from]);
      assert.deepEqual(body.response?.result, { status: "Success" });
      assert.deepEqual(body.response?.convertedObjects, [to]);
    });
  }

  test("a request with objects in several versions converts each, in order", async () => {
    const body = await convert("apps.example.com/v1beta1", [v1, v1alpha1, v1beta1]);
    assert.deepEqual(body.response?.convertedObjects, [v1beta1, v1beta1, v1beta1]);
  });

  test("a v1beta1 ConversionReview is answered as v1beta1", async () => {
    const body = await convert("apps.example.com/v1", [v1beta1], "apiextensions.k8s.io/v1beta1");
    assert.equal(body.apiVersion, "apiextensions.k8s.io/v1beta1");
    assert.deepEqual(body.response?.convertedObjects, [v1]);
  });

  test("an unknown version pair fails with a message naming the versions", async () => {
    const body = await convert("apps.example.com/v2", [v1beta1]);
    assert.equal(body.response?.result.status, "Failure");
    assert.match(
      body.response?.result.message ?? "",
      /cannot convert App.apps.example.com from v1beta1 to v2: no converter for version v2 \(known versions: v1 \(hub\), v1beta1, v1alpha1\)/,
    );
    assert.deepEqual(body.response?.convertedObjects, []);
  });

  test("an unknown kind fails", async () => {
    const other = { apiVersion: "apps.example.com/v1", kind: "Other", metadata: { name: "o" } };
    const body = await convert("apps.example.com/v1beta1", [other]);
    assert.equal(body.response?.result.status, "Failure");
    assert.match(
      body.response?.result.message ?? "",
      /no conversion is registered for Other.apps.example.com/,
    );
  });

  test("a converter that throws fails the response with its message", async () => {
    const negative: AppV1alpha1 = { ...v1alpha1, spec: { size: -1, image: "x" } };
    const body = await convert("apps.example.com/v1", [negative]);
    assert.equal(body.response?.result.status, "Failure");
    assert.match(
      body.response?.result.message ?? "",
      /failed to convert from v1alpha1 to the hub v1: size cannot be negative/,
    );
  });

  test("an object already in the desired version is returned unchanged", async () => {
    const body = await convert("apps.example.com/v1beta1", [v1beta1]);
    assert.deepEqual(body.response?.convertedObjects, [v1beta1]);
  });

  test("undecodable requests get HTTP 400 with the reason", async () => {
    const notJson = await post(run, convertPath, "nope");
    assert.equal(notJson.status, 400);
    assert.match(notJson.text, /unable to decode the request/);
    const noRequest = await post(run, convertPath, {
      apiVersion: "apiextensions.k8s.io/v1",
      kind: "ConversionReview",
    });
    assert.equal(noRequest.status, 400);
    assert.match(noRequest.text, /conversion request is nil/);
    const wrongKind = await post(run, convertPath, { apiVersion: "v1", kind: "Pod", request: {} });
    assert.equal(wrongKind.status, 400);
    assert.match(wrongKind.text, /unexpected ConversionReview kind/);
  });
});

describe("conversion registration", () => {
  test("kinds share the one /convert webhook", () => {
    const server = newWebhookServer();
    const Other = defineKind({ group: "apps.example.com", version: "v2", kind: "Other" });
    webhookFor(server, App).withConverter(appConversion).complete();
    webhookFor(server, Other)
      .withConverter({ hub: "v2", spokes: { v1: { toHub: (o) => o, fromHub: (h) => h } } })
      .complete();
    const hook = server.registered(convertPath);
    assert.ok(isConversionWebhook(hook));
    assert.ok(hook.isConvertible(App));
    assert.ok(hook.isConvertible({ group: "apps.example.com", kind: "Other" }));
    assert.deepEqual(server.paths(), ["/convert"]);
  });

  test("a handler of another sort on /convert is reported", () => {
    const server = newWebhookServer();
    server.register(convertPath, (_req, res) => res.end());
    assert.throws(
      () => webhookFor(server, App).withConverter(appConversion).complete(),
      /not a conversion webhook/,
    );
  });

  test("specs are checked when registered", () => {
    const hook = newConversionWebhook();
    const c = { toHub: (o: KubeObject) => o, fromHub: (h: KubeObject) => h };
    assert.throws(
      () => hook.registerConversion(App, { hub: "v1", spokes: { v1: c } }),
      /cannot also be a spoke/,
    );
    hook.registerConversion(App, { hub: "v1", spokes: { v2: c } });
    assert.throws(() => hook.registerConversion(App, { hub: "v1", spokes: {} }), /already registered/);
  });

  test("convert() can be called without HTTP", async () => {
    const hook = newConversionWebhook();
    hook.registerConversion(App, appConversion);
    const resp = await hook.convert({
      uid: "x",
      desiredAPIVersion: "apps.example.com/v1alpha1",
      objects: [v1],
    });
    assert.deepEqual(resp, { uid: "x", convertedObjects: [v1alpha1], result: { status: "Success" } });
  });
});
