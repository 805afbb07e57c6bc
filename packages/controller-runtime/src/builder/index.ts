/** @module controller-runtime/builder */
// builder: controllerManagedBy(mgr) and webhookManagedBy(mgr), as controller-runtime's builder package.
export type { BuilderManager, ForOptions, OwnsOptions, WatchesOptions } from "./controller-builder.js";
export type { TypedBuilderOptions } from "./controller-builder.js";
export {
  BuilderError,
  ControllerBuilder,
  controllerManagedBy,
  typedControllerManagedBy,
} from "./controller-builder.js";
export type { ManagedWebhookBuilder, WebhookBuilderManager } from "./webhook-builder.js";
export { webhookManagedBy } from "./webhook-builder.js";
