// Controller names: required, and unique per Manager, so that two controllers never report the
// same metric series.
import type { ControllerContext } from "./context.js";
import { InvalidControllerNameError } from "./errors.js";

/** Throws for an empty name, or one already taken in `ctx` (unless `skip`); else records it. */
export function checkControllerName(name: string, ctx: ControllerContext, skip: boolean): void {
  if (typeof name !== "string" || name === "") {
    throw new InvalidControllerNameError("a controller needs a name: pass a non-empty name to newController");
  }
  if (skip || ctx.controllerNames === undefined) return;
  if (ctx.controllerNames.has(name)) {
    throw new InvalidControllerNameError(
      `a controller named ${JSON.stringify(name)} already exists; controller names must be unique so ` +
        "that metrics and logs tell them apart. Give this one another name, or set skipNameValidation",
    );
  }
  ctx.controllerNames.add(name);
}
