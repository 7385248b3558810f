// CPU time of the workerd processes of a worker started by startWorker, from /proc: the measure the benches
// compare, since unlike wall time it is not inflated when other work competes for the machine's cores.
import { existsSync, readFileSync, readdirSync } from "node:fs";

/**
 * The workerd processes of a worker started by startWorker (its processGroup). wrangler dev runs two: a
 * proxy on the public port (`--socket-addr=entry=127.0.0.1:<port>`) that forwards each request to the
 * runtime that runs the user worker (`entry=127.0.0.1:0`, with the inspector). `role` tells them apart.
 */
export function workerdProcesses(processGroup) {
  const found = [];
  if (!existsSync("/proc/self/stat")) return found;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const comm = stat.slice(stat.indexOf("(") + 1, close);
      const pgrp = Number(stat.slice(close + 2).split(" ")[2]);
      if (pgrp !== processGroup || comm !== "workerd") continue;
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      const socket = cmdline.find((a) => a.startsWith("--socket-addr=entry="));
      found.push({ pid: Number(pid), role: socket && !socket.endsWith(":0") ? "proxy" : "runtime" });
    } catch {
      /* process ended while reading */
    }
  }
  // A single workerd (other wrangler versions) does both.
  if (found.length === 1) found[0].role = "runtime";
  return found;
}

/**
 * CPU time (ms, all threads, from /proc/<pid>/task/<tid>/schedstat in ns) used so far by the workerd of a
 * worker started by startWorker. which: "runtime" (default: the process running the user worker, where the
 * measured code runs), "proxy" (wrangler dev's forwarding proxy) or "all". null where /proc is unavailable.
 * CPU time, unlike wall time, is not inflated when other work competes for the machine's cores.
 */
export function workerdCpuMs(processGroup, which = "runtime") {
  if (!existsSync("/proc/self/schedstat")) return null;
  let ns = 0;
  let found = false;
  for (const { pid, role } of workerdProcesses(processGroup)) {
    if (which !== "all" && role !== which) continue;
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      }
      found = true;
    } catch {
      /* process or thread ended while reading */
    }
  }
  return found ? ns / 1e6 : null;
}
