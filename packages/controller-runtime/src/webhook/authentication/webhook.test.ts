// TokenReview webhooks over real HTTPS, posted as kube-apiserver's webhook token authenticator
// posts them: the user of a good token, no user for a bad one, the request's version and uid in
// the answer, and errors for what cannot be reviewed.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { TokenReview } from "kubernetes-types/authentication/v1.js";
import { post, type RunningServer, startServer } from "../../../../../test/support/webhook-server.js";
import { authenticated, newTokenReviewWebhook, reviewResponse, unauthenticated } from "./index.js";

let run: RunningServer;
before(async () => {
  run = await startServer((server) => {
    server.register(
      "/authenticate",
      newTokenReviewWebhook(
        {
          handle(review, ctx) {
            if (review.spec.token === "good")
              return authenticated("", { username: "alice", groups: ["devs", String(ctx.values.via)] });
            if (review.spec.token === "boom") throw new TypeError("cannot read properties of undefined");
            if (review.spec.token === "audience") return reviewResponse(true, { username: "bob" }, "", "api");
            return unauthenticated("unknown token");
          },
        },
        { contextFunc: (req) => ({ via: req.headers["content-type"] }) },
      ),
    );
  });
});
after(() => run.stop());

const review = (token: string, apiVersion = "authentication.k8s.io/v1") => ({
  apiVersion,
  kind: "TokenReview",
  metadata: { uid: `uid-${token}` },
  spec: { token },
});

async function ask(body: unknown, contentType?: string): Promise<TokenReview & { apiVersion?: string }> {
  const res = await post(run, "/authenticate", body, { contentType });
  assert.equal(res.status, 200, res.text);
  return res.json();
}

test("a good token is authenticated with its user; the answer is in the request's version, with its uid", async () => {
  const out = await ask(review("good"));
  assert.equal(out.apiVersion, "authentication.k8s.io/v1");
  assert.equal(out.metadata?.uid, "uid-good");
  assert.deepEqual(out.status, {
    authenticated: true,
    user: { username: "alice", groups: ["devs", "application/json"] },
  });
  const beta = await ask(review("good", "authentication.k8s.io/v1beta1"));
  assert.equal(beta.apiVersion, "authentication.k8s.io/v1beta1");
  assert.deepEqual((await ask(review("audience"))).status?.audiences, ["api"]);
});

test("a bad token is not authenticated and names no user", async () => {
  const out = await ask(review("nope"));
  assert.deepEqual(out.status, { authenticated: false, user: {}, error: "unknown token" });
});

test("an empty token, a wrong content type, another kind and a throwing handler are answered with errors", async () => {
  assert.equal((await ask(review(""))).status?.error, "token is empty");
  assert.match((await ask(review("good"), "text/plain")).status?.error ?? "", /contentType=text\/plain/);
  assert.match((await ask({ kind: "Pod" })).status?.error ?? "", /not a TokenReview/);
  const boom = await ask(review("boom"));
  assert.equal(boom.status?.authenticated, false);
  assert.match(boom.status?.error ?? "", /cannot read properties/);
  assert.match(await run.registry.metrics(), /controller_runtime_webhook_panics_total 1/);
});
