// Loggers of a controller, with controller-runtime's keys, for the controller itself (no request)
// and for each reconcile.
import type { GroupVersionKind } from "../api/index.js";
import type { Logger } from "../log/index.js";

/** Makes the logger for a request, or for the controller itself when `req` is undefined. */
export type LogConstructor<Req> = (req: Req | undefined) => Logger;

/** Options of {@link newLogConstructor}. */
export interface LogConstructorOptions {
  logger: Logger;
  controllerName: string;
  /** The controller's primary kind (the builder's `for()`): adds `controllerGroup`, `controllerKind`. Default: none. */
  kind?: GroupVersionKind;
}

/**
 * controller-runtime's loggers: `controller` (and with a kind, `controllerGroup`,
 * `controllerKind`) on every line; for a request, `namespace` and `name`, and with a kind also the
 * kind's lower-camel-case name holding `{ name, namespace }` (`deployment: { name, namespace }`).
 */
export function newLogConstructor<Req>(options: LogConstructorOptions): LogConstructor<Req> {
  const k = options.kind;
  const base = options.logger.withValues(
    k === undefined
      ? { controller: options.controllerName }
      : { controller: options.controllerName, controllerGroup: k.group, controllerKind: k.kind },
  );
  const kindKey = k === undefined || k.kind === "" ? undefined : k.kind[0]!.toLowerCase() + k.kind.slice(1);
  return (req) => {
    if (!isNamespacedName(req)) return base;
    const { namespace, name } = req;
    if (kindKey === undefined) return base.withValues({ namespace, name });
    return base.withValues({
      [kindKey]: namespace ? { name, namespace } : { name },
      namespace,
      name,
    });
  };
}

function isNamespacedName(req: unknown): req is { namespace: string; name: string } {
  return (
    typeof req === "object" &&
    req !== null &&
    typeof (req as { name?: unknown }).name === "string" &&
    typeof (req as { namespace?: unknown }).namespace === "string"
  );
}
