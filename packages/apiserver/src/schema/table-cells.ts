// Cell helpers of the built-in table printers: safe field access and kube's cell formats.
import { age } from "./table-format.js";
import type { TableColumnDefinition } from "./table-types.js";

export const get = (o: unknown, ...path: string[]): unknown => {
  let v = o;
  for (const p of path)
    v = v !== null && typeof v === "object" ? (v as Record<string, unknown>)[p] : undefined;
  return v;
};
export const num = (v: unknown) => (typeof v === "number" ? v : 0);
export const str = (v: unknown) => (typeof v === "string" ? v : "");
export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
export const count = (v: unknown) => (v !== null && typeof v === "object" ? Object.keys(v).length : 0);
export const col = (
  name: string,
  type = "string",
  priority = 0,
  description = "",
): TableColumnDefinition => ({
  name,
  type,
  format: "",
  description,
  priority,
});
export const ageCol = col(
  "Age",
  "string",
  0,
  "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
);
export const created = (o: unknown, now: number) => age(get(o, "metadata", "creationTimestamp"), now);
export const containers = (template: unknown) => list(get(template, "spec", "containers"));
export const names = (cs: unknown[]) => cs.map((c) => str(get(c, "name"))).join(",");
export const images = (cs: unknown[]) => cs.map((c) => str(get(c, "image"))).join(",");
export const selector = (sel: unknown): string => {
  const labels = Object.entries((get(sel, "matchLabels") as Record<string, string>) ?? {}).map(
    ([k, v]) => `${k}=${v}`,
  );
  const exprs = list(get(sel, "matchExpressions")).map((e) => {
    const op = str(get(e, "operator"));
    const key = str(get(e, "key"));
    const values = list(get(e, "values")).join(",");
    if (op === "Exists") return key;
    if (op === "DoesNotExist") return `!${key}`;
    return `${key} ${op.toLowerCase()} (${values})`;
  });
  const all = [...labels, ...exprs];
  return all.length > 0 ? all.join(",") : "<none>";
};
export const workloadExtras = [
  col("Containers", "string", 1),
  col("Images", "string", 1),
  col("Selector", "string", 1),
];
export const extras = (o: unknown) => {
  const cs = containers(get(o, "spec", "template"));
  return [names(cs), images(cs), selector(get(o, "spec", "selector"))];
};
export const subjects = (o: unknown, kind: string) =>
  list(get(o, "subjects"))
    .filter((s) => get(s, "kind") === kind)
    .map((s) =>
      kind === "ServiceAccount" ? `${str(get(s, "namespace"))}/${str(get(s, "name"))}` : str(get(s, "name")),
    )
    .join(", ");

export function podStatus(pod: unknown): string {
  let reason = str(get(pod, "status", "reason")) || str(get(pod, "status", "phase"));
  for (const cs of list(get(pod, "status", "containerStatuses"))
    .slice()
    .reverse()) {
    const waiting = str(get(cs, "state", "waiting", "reason"));
    const terminated = get(cs, "state", "terminated");
    if (waiting) reason = waiting;
    else if (terminated)
      reason = str(get(terminated, "reason")) || `ExitCode:${num(get(terminated, "exitCode"))}`;
  }
  if (get(pod, "metadata", "deletionTimestamp"))
    reason = str(get(pod, "status", "reason")) === "NodeLost" ? "Unknown" : "Terminating";
  return reason;
}

export function podRestarts(pod: unknown, now: number): string {
  let restarts = 0;
  let last = "";
  for (const cs of list(get(pod, "status", "containerStatuses"))) {
    restarts += num(get(cs, "restartCount"));
    const finished = str(get(cs, "lastState", "terminated", "finishedAt"));
    if (finished > last) last = finished;
  }
  return last ? `${restarts} (${age(last, now)} ago)` : String(restarts);
}

export function servicePorts(svc: unknown): string {
  const ports = list(get(svc, "spec", "ports")).map((p) => {
    const node = get(p, "nodePort");
    return `${num(get(p, "port"))}${node ? `:${node}` : ""}/${str(get(p, "protocol")) || "TCP"}`;
  });
  return ports.length > 0 ? ports.join(",") : "<none>";
}

export function externalIPs(svc: unknown): string {
  const type = str(get(svc, "spec", "type")) || "ClusterIP";
  const ingress = list(get(svc, "status", "loadBalancer", "ingress")).map(
    (i) => str(get(i, "ip")) || str(get(i, "hostname")),
  );
  const ips = list(get(svc, "spec", "externalIPs")).map(str);
  if (type === "ExternalName") return str(get(svc, "spec", "externalName"));
  if (type === "LoadBalancer") return [...ingress, ...ips].join(",") || "<pending>";
  return ips.length > 0 ? ips.join(",") : "<none>";
}

export function endpoints(ep: unknown): string {
  const out: string[] = [];
  for (const subset of list(get(ep, "subsets"))) {
    const ports = list(get(subset, "ports"));
    for (const addr of list(get(subset, "addresses"))) {
      const ip = str(get(addr, "ip"));
      if (ports.length === 0) out.push(ip);
      for (const p of ports) out.push(`${ip}:${num(get(p, "port"))}`);
    }
  }
  if (out.length === 0) return "<none>";
  return out.length > 3 ? `${out.slice(0, 3).join(",")} + ${out.length - 3} more...` : out.join(",");
}

export function eventObject(e: unknown): string {
  const ref = get(e, "involvedObject") ?? get(e, "regarding");
  return `${str(get(ref, "kind")).toLowerCase()}/${str(get(ref, "name"))}`;
}
