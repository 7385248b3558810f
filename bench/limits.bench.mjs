// The rate limiter's cost: API throughput, latency and CPU per request with the limiter on
// (RATE_LIMIT_MULTIPLIER=1000: none is refused; calls are decided in the isolate from tickets leased from the
// subject's RateLimiter Durable Object, src/limits/leases.ts, so only a lease now and then reaches the DO)
// against the same app with it off ("off": no limiter at all), both through wrangler dev in this run. Off and
// on alternate case by case, so drifting machine load hits both sides alike.
// Run: npm run bench -- limits   (--quick: 1 round of 2 s per case). Ports BENCH_PORT_BASE + 30/31 (default 8820/8821).
import { benchPort, fmt, load, printTable, quick, ratio, startBenchApp, writeSummary } from "./lib/index.mjs";
import { benchUser } from "./lib/users.mjs";

const seconds = quick ? 2 : 4;
const rounds = quick ? 1 : 4;
const connections = 8;

function cases(app, creds) {
  return [
    ["anonymous GET /dev/outbox (ip subject, 1 D1 read)", { url: `${app.url}/api/v1/dev/outbox?to=nobody%40example.com` }],
    ["session GET /account (user subject, 2 D1 reads)", { url: `${app.url}/api/v1/account`, headers: { authorization: `Bearer ${creds.access}` } }],
    ["API key GET /account/limits (user subject, 2 D1 reads)", { url: `${app.url}/api/v1/account/limits`, headers: { authorization: `Bearer ${creds.key}` } }],
  ];
}

const off = await startBenchApp({ port: benchPort(30), vars: { RATE_LIMIT_MULTIPLIER: "off" } });
let on;
const samples = new Map(); // label -> { off: [], on: [] }
let failures = 0;
try {
  on = await startBenchApp({ port: benchPort(31), vars: { RATE_LIMIT_MULTIPLIER: "1000" } });
  const creds = { off: await benchUser(off), on: await benchUser(on) };

  // The switch really is what differs: headers only where the limiter runs.
  for (const [name, app, expected] of [["off", off, false], ["on", on, true]]) {
    const res = await fetch(`${app.url}/api/v1/account`, { headers: { authorization: `Bearer ${creds[name].access}` } });
    await res.arrayBuffer();
    if (res.status !== 200 || res.headers.has("x-ratelimit-limit") !== expected) {
      throw new Error(`limiter ${name}: status ${res.status}, X-RateLimit-Limit ${res.headers.get("x-ratelimit-limit")}`);
    }
  }
  // Warm-up: first requests pay for isolate start and DO creation.
  for (const [name, app] of [["off", off], ["on", on]]) {
    for (const [, opts] of cases(app, creds[name])) await load({ ...opts, connections: 2, durationSeconds: 1 });
  }

  // Off and on alternate case by case (not side by side), so a burst of load elsewhere on the machine
  // lands on both sides of a case rather than on one.
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ["off", "on"] : ["on", "off"];
    for (let i = 0; i < cases(off, creds.off).length; i++) {
      for (const name of order) {
        const app = name === "off" ? off : on;
        const [label, opts] = cases(app, creds[name])[i];
        process.stdout.write(`  round ${round + 1} limiter ${name}: ${label} ...`);
        const r = await load({ ...opts, connections, durationSeconds: seconds, worker: app });
        const errors = r.errors.network + r.errors.status + r.errors.timeout;
        failures += errors;
        process.stdout.write(` ${fmt(r.rps)} req/s, p50 ${fmt(r.latencyMs.p50)} ms${errors ? `, ${errors} errors` : ""}\n`);
        if (!samples.has(label)) samples.set(label, { off: [], on: [] });
        samples.get(label)[name].push(r);
      }
    }
  }
} finally {
  await Promise.all([off.stop(), on?.stop()]);
}

const mean = (rs, f) => rs.reduce((s, r) => s + f(r), 0) / rs.length;
const rows = [...samples].map(([label, s]) => {
  const row = { label };
  for (const side of ["off", "on"]) {
    row[`${side}Rps`] = mean(s[side], (r) => r.rps);
    row[`${side}P50`] = mean(s[side], (r) => r.latencyMs.p50);
    row[`${side}Cpu`] = s[side].every((r) => r.cpuMsPerRequest !== null) ? mean(s[side], (r) => r.cpuMsPerRequest) : null;
  }
  row.cpuDelta = row.onCpu !== null && row.offCpu !== null ? row.onCpu - row.offCpu : null;
  return row;
});

console.log();
printTable(rows, [
  { key: "label", title: "route" },
  { key: "offRps", title: "req/s off" },
  { key: "onRps", title: "req/s on" },
  { key: "onRps", title: "throughput on/off", format: (_v, r) => ratio(r.onRps, r.offRps) },
  { key: "offP50", title: "p50 ms off" },
  { key: "onP50", title: "p50 ms on" },
  { key: "offCpu", title: "CPU ms/req off" },
  { key: "onCpu", title: "CPU ms/req on" },
  { key: "cpuDelta", title: "limiter CPU ms/req" },
]);
console.log(`${rounds} round(s) of ${seconds} s per case and side, ${connections} connections, off/on alternating per case; means shown.
Every request of a case comes from one subject (one RateLimiter object): the hot-key case, which leases
serve from memory (real traffic spreads over one object per user / IP). CPU ms/req: the workerd runtime process,
which also runs the Durable Object. Local wrangler dev, shared 2-core machine: compare the ratios.\n`);

writeSummary("limits", { connections, seconds, rounds, rows });
if (failures) {
  console.error(`${failures} failed requests`);
  process.exit(1);
}
