// The processes a bench or browser-suite start spawns (wrangler, and the workerd it runs): each in its own process
// group, killed as a group, and all of them killed when this process exits or is interrupted.
import { spawn } from "node:child_process";
import { appRoot } from "./paths.mjs";

export const running = new Set();
let exitHooked = false;
export function hookExit() {
  if (exitHooked) return;
  exitHooked = true;
  const killAll = () => {
    for (const child of running) killGroup(child, "SIGKILL");
  };
  process.on("exit", killAll);
  for (const sig of ["SIGINT", "SIGTERM"]) {
    process.on(sig, () => {
      killAll();
      process.exit(130);
    });
  }
}

// wrangler runs workerd as its own child: signal the whole process group that we created (detached). Also when
// wrangler itself has exited: a child it left behind may still hold our pipes open, and then "close" never comes.
export function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    /* already gone */
  }
}

/**
 * Runs a command to its end, asynchronously (so the caller's timers, a test hook's timeout among them, still
 * fire) and bounded: after timeoutMs its whole process group is killed and the result says so.
 * @returns {Promise<{ status: number | null, stdout: string, stderr: string, timedOut: boolean }>}
 */
export function run(cmd, args, { env, timeoutMs, children }) {
  return new Promise((resolve) => {
    const child = spawnGroup(cmd, args, { env, children });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    let timedOut = false;
    let settled = false;
    const settle = (status) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      running.delete(child);
      resolve({ status, stdout, stderr, timedOut });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child, "SIGKILL");
      // Killed, it is over, whether or not something outside the group still holds the pipes.
      setTimeout(() => settle(child.exitCode), 5000).unref();
    }, timeoutMs);
    child.once("close", settle);
    child.once("error", (err) => {
      stderr += `\n${cmd} could not be started: ${err.message}`;
      settle(null);
    });
  });
}

/**
 * Spawns a command as the leader of its own process group (wrangler runs workerd as its child; the group is
 * what gets killed), tracked in `running` and in the caller's `children` until its pipes close: then nothing
 * of the group is left, and its id may be reused, so it must not be signalled any more.
 */
export function spawnGroup(cmd, args, { env, children }) {
  const child = spawn(cmd, args, { cwd: appRoot, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  children?.add(child);
  const forget = () => {
    running.delete(child);
    children?.delete(child);
  };
  child.once("close", forget);
  // A spawn that fails (ENOENT, EAGAIN) emits "error" (an exception without a listener); callers add their own.
  child.once("error", forget);
  return child;
}
