// CPU time of this process's children by name, from /proc (Linux): the peer's kube-apiserver and
// etcd, which envtest starts, measured as the embedded server's child process is.
import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** `/proc/<pid>/stat`'s fields after the command: state is [0], ppid [1], utime [11], stime [12]. */
function statOf(pid: string): { comm: string; fields: string[] } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    return { comm: stat.slice(stat.indexOf("(") + 1, close), fields: stat.slice(close + 2).split(" ") };
  } catch {
    return undefined; // gone meanwhile, or not Linux
  }
}

/**
 * CPU milliseconds (user + system) used so far by the children of this process named in
 * `names`; undefined where /proc cannot tell (not Linux, no such child).
 */
export function childrenCpuMs(names: readonly string[]): number | undefined {
  let dirs: string[];
  try {
    dirs = readdirSync("/proc");
  } catch {
    return undefined;
  }
  const me = String(process.pid);
  let ms = 0;
  let found = false;
  for (const pid of dirs) {
    if (!/^\d+$/.test(pid)) continue;
    const s = statOf(pid);
    if (!s || s.fields[1] !== me || !names.includes(s.comm)) continue;
    found = true;
    ms += ((Number(s.fields[11]) + Number(s.fields[12])) * 1000) / TICKS_PER_SECOND;
  }
  return found ? ms : undefined;
}
