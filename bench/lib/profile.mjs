// CPU profiles of the worker under load, through wrangler dev's inspector (the DevTools protocol's Profiler domain),
// and where their time went: self time per source file of the bundle (esbuild writes a `// src/...` line before
// each module it inlines) and per function.
import { readFileSync } from "node:fs";
import WebSocket from "ws"; // Node's own WebSocket is refused by wrangler dev's inspector proxy
import { within } from "./bounded.mjs";

/** Starts sampling the worker behind `inspectorPort`; `stop()` ends it and returns the .cpuprofile object. */
export async function startProfile(inspectorPort, intervalUs = 100) {
  const targets = await within("the inspector's target list", fetch(`http://127.0.0.1:${inspectorPort}/json`).then((r) => r.json()), 10_000);
  const target = targets.find((t) => t.webSocketDebuggerUrl);
  if (!target) throw new Error(`no debuggable worker on inspector port ${inspectorPort}`);
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await within("the inspector's socket", new Promise((resolve, reject) => (ws.once("open", resolve), ws.once("error", reject))), 10_000);
  let nextId = 1;
  const pending = new Map();
  ws.on("message", (data) => {
    const msg = JSON.parse(String(data));
    if (msg.id && pending.has(msg.id)) {
      pending.get(msg.id)(msg);
      pending.delete(msg.id);
    }
  });
  const send = (method, params = {}) => {
    const id = nextId++;
    ws.send(JSON.stringify({ id, method, params }));
    return within(`the inspector's answer to ${method}`, new Promise((resolve) => pending.set(id, resolve)), 30_000);
  };
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: intervalUs });
  await send("Profiler.start");
  return {
    async stop() {
      const answer = await send("Profiler.stop");
      ws.close();
      if (!answer.result?.profile) throw new Error(`Profiler.stop: ${JSON.stringify(answer.error ?? answer).slice(0, 300)}`);
      return answer.result.profile;
    },
  };
}

/** Line -> source file of a bundle, from esbuild's `// path` comments (lines are 0-based, as the profile's). */
function moduleLines(bundlePath) {
  const marks = [];
  readFileSync(bundlePath, "utf8")
    .split("\n")
    .forEach((line, i) => {
      // Paths are relative to the config's directory; --against's worktree links node_modules, so those climb out of it.
      const m = /^\/\/ (\S+\.(?:ts|js|mjs|cjs|tsx))$/.exec(line);
      if (!m) return;
      const npm = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(m[1]);
      const own = /^(?:\.\.\/)*((?:src|bench|packages)\/.+)$/.exec(m[1]);
      if (npm || own) marks.push([i, npm ? `npm:${npm[1]}` : own[1]]);
    });
  return (line) => {
    let lo = 0;
    let hi = marks.length - 1;
    let found = "(bundle)";
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (marks[mid][0] <= line) {
        found = marks[mid][1];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
}

/**
 * Where the samples fell, by file and by function: shares of the isolate's busy samples (idle apart), and those
 * shares of `cpuMsPerRequest` (the runtime's CPU per request, measured apart) when given. Sample counts, not the
 * deltas between them: on a loaded machine the sampler thread is late, and a late sample's delta says nothing.
 */
export function summarizeProfile(profile, bundlePath, requests, cpuMsPerRequest) {
  const fileOf = moduleLines(bundlePath);
  const bundleName = bundlePath.split("/").pop();
  const hits = new Map();
  for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1);
  const byFile = new Map();
  const byFunction = new Map();
  let busy = 0;
  for (const node of profile.nodes) {
    const n = hits.get(node.id);
    if (!n) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === "(idle)") continue;
    busy += n;
    // wrangler dev serves the bundle as "worker.js" (the prebuilt entry under --no-bundle keeps its own name).
    const bundled = url === "worker.js" || url.endsWith(`/${bundleName}`);
    const file = bundled ? fileOf(lineNumber) : functionName.startsWith("(") ? functionName : url ? `(runtime: ${url})` : `(native) ${functionName}`;
    byFile.set(file, (byFile.get(file) ?? 0) + n);
    const fn = `${file} ${functionName || "(anonymous)"}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + n);
  }
  const per = (m) =>
    [...m]
      .map(([name, n]) => ({ name, share: n / busy, msPerRequest: cpuMsPerRequest ? (n / busy) * cpuMsPerRequest : null }))
      .sort((a, b) => b.share - a.share);
  return { requests, busySamples: busy, samples: profile.samples.length, cpuMsPerRequest: cpuMsPerRequest ?? null, files: per(byFile), functions: per(byFunction).slice(0, 30) };
}
