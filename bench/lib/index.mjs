// Helpers for bench/*.bench.mjs. See bench/README.md.
export { startWorker, appVars, wranglerEnv, root } from "./worker.mjs";
export { load, findWrk } from "./load.mjs";
export { inWorkerd } from "./workerd.mjs";
export { stats, fmt, ratio, printTable, writeSummary, environment, quick, benchPort, resultsDir } from "./report.mjs";
