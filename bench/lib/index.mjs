// Helpers for bench/*.bench.mjs. See bench/README.md.
export { startWorker, startBenchApp, appVars, wranglerEnv, workerdCpuMs, workerdProcesses, root } from "./worker.mjs";
export { benchConfigPath, BENCH_CONFIG } from "./bench-config.mjs";
export { load, findWrk } from "./load.mjs";
export { inWorkerd, summarize } from "./workerd.mjs";
export { stats, fmt, ratio, printTable, writeSummary, environment, quick, benchPort, resultsDir } from "./report.mjs";
