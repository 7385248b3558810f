// One subject's bucket in one isolate for one window: the tickets leased from the RateLimiter object and not
// yet spent, what the object said was issued, and the size and pending call of its leases (./leases.ts).
import type { LeaseGrant, LimitState } from "./rate-limiter";

export class Bucket {
  /** Unspent tickets, ascending, inclusive ranges. */
  readonly tickets: [number, number][] = [];
  /** The highest count the object reported: tickets up to it have been issued to someone. */
  known = 0;
  lastTaken = 0;
  size = 0;
  leasedAt = 0;
  pending?: Promise<{ bucket: Bucket; granted: number }>;

  constructor(
    readonly limit: number,
    /** Epoch seconds when the window ends, as the object said; 0 before it was asked. */
    public reset: number,
  ) {}

  get spare() {
    return this.tickets.reduce((n, [a, b]) => n + b - a + 1, 0);
  }
  get usedUp() {
    return this.reset > 0 && this.tickets.length === 0 && this.known >= this.limit;
  }
  take(): number | undefined {
    const first = this.tickets[0];
    if (!first) return undefined;
    const t = first[0];
    if (t === first[1]) this.tickets.shift();
    else first[0] = t + 1;
    this.lastTaken = t;
    return t;
  }
  /** Puts back a ticket taken for a request that was refused, unless a later one was spent since. */
  giveBack(t: number) {
    if (this.lastTaken !== t) return;
    this.tickets.unshift([t, t]);
    this.lastTaken = t - 1;
  }
  add(g: LeaseGrant) {
    this.known = Math.max(this.known, g.count);
    if (g.granted <= 0) return;
    const range: [number, number] = [g.count - g.granted + 1, g.count];
    const at = this.tickets.findIndex(([a]) => a > range[0]);
    if (at < 0) this.tickets.push(range);
    else this.tickets.splice(at, 0, range);
  }
  /** The state shown for a request that spent ticket `t`, or (no ticket) for a look at the bucket. */
  state(t?: number): LimitState {
    // Without a ticket: the last one spent here while some are in hand (the next shown will be lower),
    // else everything the object has issued.
    const used = t ?? (this.tickets.length > 0 ? this.lastTaken : Math.max(this.known, this.lastTaken));
    return { allowed: true, limit: this.limit, remaining: Math.max(0, this.limit - used), reset: this.reset };
  }
  refused(): LimitState {
    return { allowed: false, limit: this.limit, remaining: 0, reset: this.reset };
  }
}
