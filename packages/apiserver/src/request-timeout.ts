// The `timeout` query parameter as kube's WithRequestDeadline filter reads it, before
// authentication: a Go duration, or a 400 in time.ParseDuration's words. Long-running requests
// (watches, proxies, exec, attach, logs, port-forwards) are not given a deadline and not checked.
import { parseGoDuration } from "controller-runtime/api";
import { requestAttributes } from "./authz/index.js";
import type { UserInfo } from "./handlers/context.js";
import type { RequestTarget } from "./request-path.js";
import { badRequest } from "./status.js";

const LONG_RUNNING_VERBS = new Set(["watch", "proxy"]);
const LONG_RUNNING_SUBRESOURCES = new Set(["attach", "exec", "proxy", "log", "portforward"]);
const ANONYMOUS: UserInfo = { name: "system:anonymous", groups: [] };

export function checkRequestTimeout(method: string, target: RequestTarget): void {
  const value = target.query.get("timeout") ?? "";
  if (value === "" || parseGoDuration(value) !== undefined) return;
  const attrs = requestAttributes(method, target, ANONYMOUS);
  if (
    attrs.resourceRequest &&
    (LONG_RUNNING_VERBS.has(attrs.verb) || LONG_RUNNING_SUBRESOURCES.has(attrs.subresource ?? ""))
  ) {
    return;
  }
  throw badRequest(`invalid timeout specified in the request URL - ${goDurationError(value)}`);
}

const UNITS = new Set(["ns", "us", "µs", "μs", "ms", "s", "m", "h"]);

/** time.ParseDuration's error for a text it refuses. */
function goDurationError(text: string): string {
  const quoted = JSON.stringify(text);
  const invalid = `time: invalid duration ${quoted}`;
  let s = text.replace(/^[-+]/, "");
  if (s === "") return invalid;
  while (s !== "") {
    const num = /^(\d*)(\.(\d*))?/.exec(s)!;
    if (num[1] === "" && (num[3] ?? "") === "") return invalid;
    s = s.slice(num[0].length);
    const unit = /^[^.\d]*/.exec(s)![0];
    if (unit === "") return `time: missing unit in duration ${quoted}`;
    if (!UNITS.has(unit)) return `time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`;
    s = s.slice(unit.length);
  }
  return invalid;
}
