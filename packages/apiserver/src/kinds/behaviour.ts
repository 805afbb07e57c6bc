// Per-kind behaviour of built-in resources: the defaulting, validation and deletion rules that
// kube-apiserver's registry strategies apply beyond the generic metadata rules.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import type { ServerContext, UserInfo } from "../handlers/context.js";
import type { Obj } from "../storage/index.js";

export interface KindBehaviour {
  /** Fills defaults in place, on create (`old` undefined) and on update. */
  defaults?(obj: Obj, ctx: { old: Readonly<Obj> | undefined; server: ServerContext; dryRun?: boolean }): void;
  /**
   * What kube's storage sets on a create after the field manager has recorded the request, so
   * that no manager owns it: a Service's allocated addresses, a Namespace's finalizer.
   */
  created?(obj: Obj, ctx: { server: ServerContext; user?: UserInfo; dryRun?: boolean }): void;
  /** Kind-specific validation: missing required fields, bad values. */
  validate?(obj: Obj, old: Readonly<Obj> | undefined, server: ServerContext): StatusCause[];
  /** On a delete request, before the server decides whether the object can go now. */
  beginDelete?(obj: Obj, now: Date): void;
  /** Whether something besides metadata.finalizers keeps the object (a namespace's spec.finalizers). */
  held?(obj: Readonly<Obj>): boolean;
}
