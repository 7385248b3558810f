// When a failed delivery is tried again: pure, so the schedule is tested without waiting for it.
import { WEBHOOKS } from "../config";

/** Seconds until try `attempt + 1` after try `attempt` failed (1-based), or null when `attempt` was the last. */
export function retryDelaySeconds(attempt: number): number | null {
  return WEBHOOKS.retryDelaysSeconds[attempt - 1] ?? null;
}

/** How many tries a delivery gets from the queue on its own (a manual retry adds one). */
export const AUTOMATIC_TRIES = WEBHOOKS.retryDelaysSeconds.length + 1;
