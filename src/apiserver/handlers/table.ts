// The Table form (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`), built by the schema
// helper's conversion once it is available; until then clients fall back to plain JSON.
import { notAcceptable } from "../status.js";
import type { StoredObject } from "../storage/index.js";
import type { ResourceRequest } from "./context.js";

export function tableSupported(): boolean {
  return false;
}

export function tableJson(
  _r: ResourceRequest,
  _objects: StoredObject[],
  _rv: string,
  _continue?: string,
): string {
  throw notAcceptable();
}
