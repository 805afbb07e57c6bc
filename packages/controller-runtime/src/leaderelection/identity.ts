import { randomUUID } from "node:crypto";
import { hostname } from "node:os";

/** controller-runtime's default holder identity: `<hostname>_<random uuid>`, unique per process start. */
export function defaultIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}
