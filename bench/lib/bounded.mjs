// Bounds that hold whatever the awaited thing does. An AbortSignal only bounds work that honours it, and
// twice in CI a start step outlived every AbortSignal.timeout it had (the last clean-clone CI: wrangler dev's
// first-answer probe, each fetch under a 2 s signal, was still waiting after 450 s). A timer of our own,
// raced against the work, cannot be lost that way.

/**
 * `promise`, or a rejection naming `what` once `timeoutMs` has passed, whichever comes first. `onLate` runs
 * when the bound wins (to abort or kill what is left behind).
 */
export function within(what, promise, timeoutMs = 60_000, onLate = () => {}) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => {
      onLate();
      reject(new Error(`${what} did not end within ${timeoutMs} ms`));
    }, timeoutMs);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** fetch and read the whole body, aborted and given up after `timeoutMs` either way; the response and its bytes. */
export async function fetchWithin(url, init = {}, timeoutMs = 60_000) {
  const what = `${init.method ?? "GET"} ${url}`;
  const ac = new AbortController();
  const work = (async () => {
    try {
      const res = await fetch(url, { ...init, signal: ac.signal });
      return { res, body: await res.arrayBuffer() };
    } catch (err) {
      throw new Error(`${what}: ${err.message}${err.cause ? ` (${err.cause.message ?? err.cause})` : ""}`);
    }
  })();
  work.catch(() => {}); // when the bound wins, the abort's rejection has no one left to hear it
  return within(what, work, timeoutMs, () => ac.abort());
}
