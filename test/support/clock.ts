// Rate limits use fixed windows aligned to the epoch (limits/rate-limiter.ts). A test that counts up to a limit
// with the real clock fails when a window boundary falls inside it. startOfNextWindow() moves the clock (Date
// only, shared by the worker and its Durable Objects in the test isolate) to just after the next boundary and
// lets it run on from there, so the whole test sits inside one window. Timers stay real.
import { vi } from "vitest";

export function startOfNextWindow(windowSeconds: number): () => void {
  const w = windowSeconds * 1000;
  vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
  vi.setSystemTime(Math.ceil(Date.now() / w) * w + 1000);
  return () => vi.useRealTimers();
}
