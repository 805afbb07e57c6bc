// Per-kind behaviour of built-in resources: the defaulting, validation and deletion rules that
// kube-apiserver's registry strategies apply beyond the generic metadata rules.
import type { StatusCause } from "kubernetes-types/meta/v1.js";
import type { ServerContext, UserInfo } from "../handlers/context.js";
import type { Obj } from "../storage/index.js";

/** What a write's own side effects need once the write is decided (kube's BeginCreate/BeginUpdate FinishFunc). */
export interface WriteEffects {
  /** The write was not stored: undo what was done for it. */
  revert?(): void;
  /** The write was stored. */
  committed?(): void;
}

export interface KindBehaviour {
  /** Fills defaults in place, on create (`old` undefined) and on update (`subresource` "" for the object). */
  defaults?(
    obj: Obj,
    ctx: { old: Readonly<Obj> | undefined; server: ServerContext; dryRun?: boolean; subresource?: string },
  ): void;
  /**
   * What kube's storage sets on a create after the field manager has recorded the request, so
   * that no manager owns it: a Service's allocated addresses, a Namespace's finalizer.
   */
  created?(
    obj: Obj,
    ctx: { server: ServerContext; user?: UserInfo; dryRun?: boolean },
    // biome-ignore lint/suspicious/noConfusingVoidType: most kinds' hooks return nothing; a Service's what undoes its allocation
  ): WriteEffects | void;
  /**
   * What kube's storage does as an update is committed (BeginUpdate), after the field manager:
   * a Service that stops or starts holding addresses.
   */
  updating?(
    obj: Obj,
    old: Readonly<Obj>,
    ctx: { server: ServerContext; dryRun?: boolean },
  ): WriteEffects | undefined;
  /** After the object left storage for good: what it held is released (a Service's addresses). */
  removed?(obj: Readonly<Obj>, ctx: { server: ServerContext }): void;
  /** Kind-specific validation: missing required fields, bad values; `subresource` on updates ("" for the object). */
  validate?(
    obj: Obj,
    old: Readonly<Obj> | undefined,
    server: ServerContext,
    subresource: string,
  ): StatusCause[];
  /** On a delete request, before the server decides whether the object can go now. */
  beginDelete?(obj: Obj, now: Date): void;
  /** Whether something besides metadata.finalizers keeps the object (a namespace's spec.finalizers). */
  held?(obj: Readonly<Obj>): boolean;
}
