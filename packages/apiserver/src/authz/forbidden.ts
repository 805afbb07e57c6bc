// kube's 403 for a request the authorizer did not allow (responsewriters.Forbidden): the resource
// (without subresource) qualified by its group, the user, the verb and where.
import { ApiError } from "../status.js";
import type { Attributes } from "./attributes.js";

export function forbiddenMessage(a: Attributes): string {
  const user = `User ${JSON.stringify(a.user.name)}`;
  if (!a.resourceRequest) return `${user} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const what = `${user} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)}`;
  return a.namespace
    ? `${what} in the namespace ${JSON.stringify(a.namespace)}`
    : `${what} at the cluster scope`;
}

export function forbiddenError(a: Attributes, reason: string): ApiError {
  const why = reason ? `${forbiddenMessage(a)}: ${reason}` : forbiddenMessage(a);
  const qualified = a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource;
  let message: string;
  if (!a.resource) message = `forbidden: ${why}`;
  else if (!a.name) message = `${qualified} is forbidden: ${why}`;
  else message = `${qualified} ${JSON.stringify(a.name)} is forbidden: ${why}`;
  const details: Record<string, string> = {};
  if (a.name) details.name = a.name;
  if (a.apiGroup) details.group = a.apiGroup;
  if (a.resource) details.kind = a.resource;
  return new ApiError(403, "Forbidden", message, details);
}
