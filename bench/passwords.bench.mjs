// Password hashing cost INSIDE workerd: our PBKDF2-HMAC-SHA256 at 100k iterations (WebCrypto, the most that
// production Workers allow) against PBKDF2 at OWASP's 600k, and scrypt / argon2id in pure JS (@noble/hashes,
// the only way to get them on Workers). Baseline: one SHA-256. Ratios are against PBKDF2-100k.
// Run: npm run bench -- passwords   (add --quick for fewer samples)
import { benchPort, fmt, inWorkerd, printTable, quick, ratio, summarize, writeSummary } from "./lib/index.mjs";
import os from "node:os";

const rounds = quick ? 3 : 15;

// [label, case, params, note]
const CASES = [
  ["SHA-256 (WebCrypto), baseline", "sha256WebCrypto", {}, "one digest"],
  ["PBKDF2-SHA256 100k (WebCrypto)", "pbkdf2WebCrypto", { iterations: 100_000 }, "our choice; production max"],
  ["hashPassword() (src/platform)", "ourHashPassword", {}, "signup path, incl. encoding"],
  ["verifyPassword() (src/platform)", "ourVerifyPassword", {}, "login path"],
  ["PBKDF2-SHA256 600k (WebCrypto)", "pbkdf2WebCrypto", { iterations: 600_000 }, "OWASP 2023; refused in production"],
  ["PBKDF2-SHA256 100k (noble, JS)", "pbkdf2NobleJs", { iterations: 100_000 }, "same work without native code"],
  ["scrypt N=2^14 r=8 p=1 (noble)", "scryptNoble", { logN: 14 }, "16 MiB"],
  ["scrypt N=2^15 r=8 p=1 (noble)", "scryptNoble", { logN: 15 }, "32 MiB"],
  ["argon2id m=19MiB t=2 p=1 (noble)", "argon2idNoble", { m: 19 * 1024, t: 2, p: 1 }, "OWASP's first choice"],
];

const worker = await inWorkerd({ module: "bench/snippets/passwords.mjs", port: benchPort(1) });
const rows = [];
let probe;
try {
  probe = await worker.call("pbkdf2SingleCall", { iterations: 600_000 });
  // Warm up and size each case's batch, then take the samples round-robin (one per case per round), so a
  // change in the machine's load during the run hits every case alike and the ratios stay fair.
  const inner = [];
  for (const [label, name, params] of CASES) {
    inner.push(await worker.calibrate(name, { params, warmup: 1, minSampleMs: 100 }));
    process.stdout.write(`  calibrated ${label}: ${inner.at(-1)} per sample\n`);
  }
  // Each round visits the cases in a new random order, after a short pause: garbage one case leaves behind
  // (65k SHA-256 digests allocate a lot) is collected on background threads that count as workerd CPU, so a
  // fixed order would bill it to whichever case always came next.
  const taken = CASES.map(() => []);
  for (let round = 0; round < rounds; round++) {
    process.stdout.write(`\r  round ${round + 1}/${rounds}`);
    for (const i of shuffle([...CASES.keys()])) {
      await new Promise((r) => setTimeout(r, 50));
      const [, name, params] = CASES[i];
      taken[i].push(await worker.sample(name, { params, inner: inner[i] }));
    }
  }
  process.stdout.write("\n");
  for (const [i, [label, name, params, note]] of CASES.entries()) {
    const r = summarize(name, params, inner[i], taken[i]);
    const s = r.cpuStats ?? r.stats; // CPU time when /proc is there, else wall time inside the isolate
    rows.push({
      label, case: name, params, note, inner: r.inner, samples: r.msPerOp.length,
      metric: r.cpuStats ? "cpu" : "wall",
      median: s.median, min: s.min, p90: s.p90, stddev: s.stddev,
      wallMedian: r.stats.median,
      cpuMsPerOp: r.cpuMsPerOp, wallMsPerOp: r.msPerOp,
    });
  }
} finally {
  await worker.stop();
}

function shuffle(a) {
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

const base = rows.find((r) => r.case === "sha256WebCrypto").median;
const ours = rows.find((r) => r.case === "pbkdf2WebCrypto" && r.params.iterations === 100_000).median;
for (const r of rows) {
  r.vsSha256 = r.median / base;
  r.vsPbkdf2_100k = r.median / ours;
  r.hashesPerSecondPerCore = 1000 / r.median;
}

console.log();
printTable(rows, [
  { key: "label", title: "algorithm (inside workerd)" },
  { key: "median", title: `${rows[0].metric === "cpu" ? "CPU" : "wall"} ms/hash (median)` },
  { key: "min", title: "min" },
  { key: "p90", title: "p90" },
  { key: "wallMedian", title: "wall ms (median)" },
  { key: "samples", title: "n" },
  { key: "hashesPerSecondPerCore", title: "hashes/s/core" },
  { key: "vsSha256", title: "vs SHA-256", format: (v) => `${fmt(v)}x` },
  { key: "vsPbkdf2_100k", title: "vs PBKDF2-100k", format: (_, r) => ratio(r.median, ours) },
  { key: "note", title: "note" },
]);
console.log(
  `Local workerd ${probe ? `refused` : "accepted"} a single 600k-iteration PBKDF2 call${probe ? ` (${probe})` : ""}; production Workers refuse > 100,000.`,
);
console.log("Workers CPU limits per invocation: free plan 10 ms, paid plan 30 s by default (configurable up to 5 min).");
console.log(`Machine: ${os.cpus()[0]?.model}, load average ${os.loadavg().map((x) => x.toFixed(2)).join(" ")} (other work on the box inflates figures).\n`);

writeSummary("passwords", {
  unit:
    rows[0].metric === "cpu"
      ? "ms per hash: CPU time of the local workerd process (median/min/p90); wallMedian: wall time inside the isolate"
      : "ms per hash: wall time inside the isolate (no /proc for CPU time)",
  baseline: "sha256WebCrypto",
  reference: "pbkdf2WebCrypto 100k",
  localRuntimeRefuses600kPbkdf2: probe || false,
  rows,
});
