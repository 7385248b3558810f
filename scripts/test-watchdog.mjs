// A vitest reporter that turns a stalled run into a failure that says where it stalled.
//
// Every test, hook and file has its own timeout, but a run can still stop outside all of them: in the pool
// between two files (starting or stopping a file's workerd), in a file's setup or imports, or after the last
// file. The watchdog follows each file through its steps (queued, started, collected, each hook and test) and,
// when no step has begun or ended for `stallSeconds`, prints every file in flight with the step it is in and
// for how long, then kills the run's child processes (workerd, wrangler) and exits 1. It also bounds the
// wait between the run's end and the process's exit. Silence longer than a minute is reported as it lasts.
import { readdirSync, readFileSync } from "node:fs";

/** @typedef {{ step: string; since: number }} InFlight */

export default class TestWatchdog {
  /** @param {{ stallSeconds?: number; exitSeconds?: number; name?: string }} [options] */
  constructor(options = {}) {
    this.stallMs = Number(process.env.TEST_STALL_SECONDS ?? options.stallSeconds ?? 240) * 1000;
    this.exitMs = (options.exitSeconds ?? 120) * 1000;
    this.name = options.name ?? "tests";
    /** @type {Map<string, InFlight>} */
    this.files = new Map();
    this.lastEvent = Date.now();
    this.lastNotice = 0;
    this.ended = 0;
    this.total = 0;
    this.timer = undefined;
  }

  onTestRunStart(specifications) {
    this.total = specifications.length;
    this.lastEvent = Date.now();
    this.timer = setInterval(() => this.check(), 5000);
    this.timer.unref();
  }

  /** @param {string} file @param {string} step */
  mark(file, step) {
    const now = Date.now();
    this.lastEvent = now;
    this.files.set(file, { step, since: now });
  }

  rel(module) {
    return module.relativeModuleId ?? module.moduleId;
  }

  onTestModuleQueued(module) {
    this.mark(this.rel(module), "queued: its runtime starting, or its setup files and imports running");
  }
  onTestModuleStart(module) {
    this.mark(this.rel(module), "started: setup files and imports");
  }
  onTestModuleCollected(module) {
    this.mark(this.rel(module), "collected: waiting for the first hook or test");
  }
  onHookStart(hook) {
    const module = hook.entity.type === "module" ? hook.entity : hook.entity.module;
    const where = hook.entity.type === "module" ? "the file" : `"${hook.entity.fullName ?? hook.entity.name}"`;
    this.mark(this.rel(module), `${hook.name} hook of ${where}`);
  }
  onHookEnd(hook) {
    const module = hook.entity.type === "module" ? hook.entity : hook.entity.module;
    this.mark(this.rel(module), `after the ${hook.name} hook of ${hook.entity.type === "module" ? "the file" : `"${hook.entity.name}"`}`);
  }
  onTestCaseReady(test) {
    this.mark(this.rel(test.module), `test "${test.fullName}"`);
  }
  onTestCaseResult(test) {
    this.mark(this.rel(test.module), `after test "${test.fullName}" (file teardown, waitUntil work, or the next test's start)`);
  }
  onTestModuleEnd(module) {
    this.files.delete(this.rel(module));
    this.ended++;
    this.lastEvent = Date.now();
  }

  onTestRunEnd() {
    clearInterval(this.timer);
    // The run is over: the process must now exit. Bound that too (a runtime that does not stop, an open handle).
    const t = setTimeout(() => {
      console.error(`\n[watchdog] ${this.name}: the run ended ${this.exitMs / 1000} s ago but the process has not exited; stopping it.`);
      this.killChildren();
      process.exit(process.exitCode || 1);
    }, this.exitMs);
    t.unref();
  }

  check() {
    const now = Date.now();
    const silent = now - this.lastEvent;
    if (silent >= this.stallMs) {
      console.error(`\n[watchdog] ${this.name}: nothing began or ended for ${Math.round(silent / 1000)} s (TEST_STALL_SECONDS=${this.stallMs / 1000}); ${this.ended} of ${this.total} files had ended.`);
      this.printInFlight(now);
      this.killChildren();
      process.exit(1);
    }
    if (silent >= 60_000 && now - this.lastNotice >= 60_000) {
      this.lastNotice = now;
      console.error(`[watchdog] ${this.name}: quiet for ${Math.round(silent / 1000)} s; in flight:`);
      this.printInFlight(now);
    }
  }

  printInFlight(now) {
    if (this.files.size === 0) console.error("  no file in flight (the pool is between files, or the run is ending)");
    for (const [file, { step, since }] of this.files) console.error(`  ${file}: ${step}, for ${Math.round((now - since) / 1000)} s`);
  }

  /** SIGKILL to every descendant of this process (Linux /proc): workerd runtimes, wrangler, chromium. */
  killChildren() {
    try {
      const parent = new Map();
      for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
        try {
          const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
          parent.set(Number(pid), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
        } catch {
          // the process ended meanwhile
        }
      }
      const mine = new Set([process.pid]);
      for (let grew = true; grew; ) {
        grew = false;
        for (const [pid, ppid] of parent) if (mine.has(ppid) && !mine.has(pid)) (mine.add(pid), (grew = true));
      }
      mine.delete(process.pid);
      for (const pid of mine) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone already
        }
      }
    } catch {
      // not Linux: the exit below still ends the run
    }
  }
}
