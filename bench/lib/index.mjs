// Helpers for bench/*.bench.mjs. See bench/README.md.
export { startWorker, startBenchApp, appVars, wranglerEnv, root } from "./worker.mjs";
export { workerdCpuMs, workerdProcesses } from "./workerd-procs.mjs";
export { within, fetchWithin } from "./bounded.mjs";
export { benchConfigPath, BENCH_CONFIG } from "./bench-config.mjs";
export { load, findWrk } from "./load.mjs";
export { inWorkerd, summarize } from "./workerd.mjs";
export { stats, fmt, ratio, medianRatio, printTable, writeSummary, environment, quick, benchPort, resultsDir } from "./report.mjs";
