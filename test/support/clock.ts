// Rate limits use fixed windows aligned to the epoch (limits/rate-limiter.ts). A test that counts up to a limit
// with the real clock fails when a window boundary falls inside it. startOfNextWindow() moves the clock (Date
// only, shared by the worker and its Durable Objects in the test isolate) to just after the next boundary and
// lets it run on from there, so the whole test sits inside one window. Timers stay real.
import { onTestFinished, vi } from "vitest";

export function startOfNextWindow(windowSeconds: number): () => void {
  const w = windowSeconds * 1000;
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
  vi.setSystemTime(Math.ceil(Date.now() / w) * w + 1000);
  return () => vi.useRealTimers();
}

/**
 * For a test that counts to a limit with tokens issued before it: moves the clock only when the current window
 * ends within `marginSeconds`, to just after that boundary, so it moves at most that far (a 15-minute access token
 * stays valid) and the test still sits inside one window. Restores the clock when the test ends.
 */
export function clearOfWindowEdge(windowSeconds: number, marginSeconds = 60): void {
  const w = windowSeconds * 1000;
  const next = Math.ceil(Date.now() / w) * w;
  if (next - Date.now() > marginSeconds * 1000) return;
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
  vi.setSystemTime(next + 1000);
  onTestFinished(() => {
    vi.useRealTimers();
  });
}
