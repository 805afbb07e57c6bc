// webhookManagedBy(mgr): controller-runtime's webhook builder, on the manager's webhook server
// (which the manager then runs in its Webhooks group, on every replica).
import type { Kind, KubeObject } from "../api/index.js";
import { type WebhookBuilder, type WebhookServer, webhookFor } from "../webhook/index.js";

/** What the webhook builder needs of the Manager. */
export interface WebhookBuilderManager {
  getWebhookServer(): WebhookServer;
}

export interface ManagedWebhookBuilder {
  /** The kind whose objects the webhooks default, validate or convert. */
  for<T extends KubeObject>(kind: Kind<T>): WebhookBuilder<T>;
}

/** `webhookManagedBy(mgr).for(Kind).withDefaulter(d).withValidator(v).complete()`. */
export function webhookManagedBy(mgr: WebhookBuilderManager): ManagedWebhookBuilder {
  return { for: (kind) => webhookFor(mgr.getWebhookServer(), kind) };
}
