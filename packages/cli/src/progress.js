// One progress bar per file while `imghost upload` runs (cli-progress), on stderr and only when stderr is a
// terminal: piped or logged output gets the result lines alone.
import cliProgress from "cli-progress";
import { formatBytes } from "./format.js";

const NAME_WIDTH = 28;

/** A file name cut to NAME_WIDTH columns from the left ("…/holiday/IMG_0042.png"), padded to it. */
function fit(/** @type {string} */ name) {
  const cut = name.length > NAME_WIDTH ? `…${name.slice(name.length - NAME_WIDTH + 1)}` : name;
  return cut.padEnd(NAME_WIDTH);
}

/**
 * @typedef {{ update(sent: number): void; finish(state: "done" | "failed"): void }} FileBar
 * @typedef {{ add(name: string, bytes: number): FileBar; stop(): void }} Bars
 */

/** @returns {Bars} */
export function progressBars({ enabled = Boolean(process.stderr.isTTY) } = {}) {
  if (!enabled) return { add: () => ({ update() {}, finish() {} }), stop() {} };
  const multi = new cliProgress.MultiBar(
    {
      stream: process.stderr,
      format: "{name} {bar} {percentage}% {sent}/{size} {state}",
      barsize: 24,
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      autopadding: true,
      etaBuffer: 20,
    },
    cliProgress.Presets.shades_classic,
  );
  return {
    add(name, bytes) {
      const total = Math.max(bytes, 1);
      const bar = multi.create(total, 0, { name: fit(name), sent: formatBytes(0), size: formatBytes(bytes), state: "" });
      return {
        // All bytes sent: the server is still checking and analysing them until the answer comes.
        update: (sent) => bar.update(Math.min(sent, total), { sent: formatBytes(sent), state: sent >= bytes ? "processing…" : "" }),
        finish: (state) => {
          if (state === "done") bar.update(total, { sent: formatBytes(bytes), state: "done" });
          else bar.update({ state: "failed" });
          bar.stop();
        },
      };
    },
    stop: () => multi.stop(),
  };
}
