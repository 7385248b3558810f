// Rate-limit decisions in the isolate from leased blocks of the RateLimiter's numbered calls ("tickets"), counted by
// the object when leased, so all isolates together never pass the limit (unkey's decide-then-sync would let a subject
// overshoot). Unspent tickets lapse: a given-back one could be issued twice and Remaining go up. Every lease call is
// bounded, and a waiter on another's call has a timer of its own (workerd may cancel a request waiting on another's
// work). Lease sizes, sharing and the upload bucket: docs/limits-and-billing.md § How leases work.
import { Bucket } from "./bucket";
import type { BucketSpec, LeaseGrant, LeaseRequest, LeaseResult, LimitState } from "./rate-limiter";

/** Where leases come from: the subject's RateLimiter stub in production, a wrapped one in tests. */
export type LeaseSource = { lease(requests: LeaseRequest[]): Promise<LeaseResult> };
export type WaitUntil = (work: Promise<unknown>) => void;

/** A lease spent faster than this doubles the next one; a slower one halves it. */
const QUICK_MS = 10_000;
/**
 * Once a subject came back to this isolate, its leases do not shrink below this share of the limit (1 call for
 * the anonymous 100/h, 3 for free, 39 for pro), so a subject with a large budget seldom waits for the object
 * even when it is not busy; when such a quiet subject stops coming to this isolate, at most that lapses.
 */
const MIN_LEASE_SHARE = 256;
const MAX_LEASE = 1 << 20;
/** Buckets remembered per isolate; the oldest are dropped first (their unspent tickets lapse). */
const MAX_BUCKETS = 10_000;
/** Lease replies granting nothing one request waits for before giving up (a safety bound: a reply with room grants at least one). */
const MAX_FRUITLESS = 3;
/** A lease call not answered within this is given up (the object answers in well under a second from anywhere). */
const LEASE_TIMEOUT_MS = 5_000;

export type Counted = {
  allowed: boolean;
  api: LimitState;
  /** Undefined when this isolate has not heard about the uploads bucket in this window. */
  uploads?: LimitState;
  /** The bucket that refused the request (remaining 0), or undefined when allowed. */
  refusedBy?: LimitState;
};

export class LeaseHolder {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly leaseTimeoutMs = LEASE_TIMEOUT_MS) {}

  /** One ordinary API call: a ticket of the API bucket, from memory when one is in hand. */
  async countCall(source: LeaseSource, subject: string, api: BucketSpec, uploads: BucketSpec, waitUntil?: WaitUntil): Promise<Counted> {
    let b = this.current(subject, api);
    // Waiters share one lease call per bucket; a reply that granted nothing (other than a used-up bucket)
    // can only be one for an older window, and is not waited for again and again.
    let ownTurn = false;
    for (let fruitless = 0; fruitless < MAX_FRUITLESS; ) {
      const t = b.take();
      if (t !== undefined) {
        this.refillIfLow(source, subject, api, uploads, b, waitUntil);
        return { allowed: true, api: b.state(t), uploads: this.look(subject, uploads) };
      }
      if (b.usedUp) break;
      const shared = ownTurn ? undefined : b.pending;
      let leased;
      try {
        leased = await (shared ? within(shared, this.leaseTimeoutMs) : this.lease(source, subject, api, uploads, b));
      } catch (err) {
        if (!shared) throw err;
        ownTurn = true; // another request's call failed or was given up: this one makes its own
        continue;
      }
      if (leased.granted === 0) fruitless += 1;
      b = leased.bucket;
    }
    return { allowed: false, api: b.refused(), uploads: this.look(subject, uploads), refusedBy: b.refused() };
  }

  /** An upload start: one call of each bucket, all or nothing, in one object call. */
  async countUploadStart(source: LeaseSource, subject: string, api: BucketSpec, uploads: BucketSpec): Promise<Counted> {
    let a = this.current(subject, api);
    let u = this.current(subject, uploads);
    if (u.usedUp) return { allowed: false, api: a.state(), uploads: u.refused(), refusedBy: u.refused() };
    if (a.usedUp) return { allowed: false, api: a.refused(), uploads: u.state(), refusedBy: a.refused() };
    // A ticket in hand covers the API call; the object then only has to find room in the uploads bucket.
    const reserved = a.take();
    const want = reserved !== undefined ? 0 : this.nextSize(a);
    const res = await within(
      source.lease([
        { ...api, need: reserved !== undefined ? 0 : 1, want },
        { ...uploads, need: 1, want: 1 },
      ]),
      this.leaseTimeoutMs,
    );
    const before = a;
    a = this.absorb(subject, api, a, res.buckets[0]);
    u = this.absorb(subject, uploads, u, res.buckets[1]);
    if (!res.allowed) {
      if (reserved !== undefined && a === before) a.giveBack(reserved);
      const refusedBy = res.buckets[0].allowed ? u.refused() : a.refused();
      return { allowed: false, api: a.state(), uploads: u.state(), refusedBy };
    }
    const t = reserved !== undefined && a === before ? reserved : a.take();
    return { allowed: true, api: a.state(t), uploads: u.state(u.take()) };
  }

  /** The isolate's view of the buckets, asking the object only about those it knows nothing of. */
  async lookUp(source: LeaseSource, subject: string, specs: BucketSpec[]): Promise<LimitState[]> {
    const known = specs.map((s) => this.look(subject, s));
    if (known.every((k) => k !== undefined)) return known as LimitState[];
    const res = await within(
      source.lease(specs.map((s) => ({ ...s, need: 0, want: 0 }))),
      this.leaseTimeoutMs,
    );
    return specs.map((s, i) => this.absorb(subject, s, this.current(subject, s), res.buckets[i]).state());
  }

  /** Forgets what this isolate holds for a subject (tests use it to play a fresh isolate). */
  forget(subject: string) {
    for (const key of this.buckets.keys()) if (key.startsWith(`${subject}\n`)) this.buckets.delete(key);
  }

  private look(subject: string, spec: BucketSpec): LimitState | undefined {
    const b = this.buckets.get(keyOf(subject, spec));
    return b && b.reset * 1000 > Date.now() ? b.state() : undefined;
  }

  /** The bucket of this window (a fresh one when the window this isolate knew has ended or the limit changed). */
  private current(subject: string, spec: BucketSpec): Bucket {
    const key = keyOf(subject, spec);
    const b = this.buckets.get(key);
    if (b && (b.reset === 0 || b.reset * 1000 > Date.now())) return b;
    const fresh = new Bucket(spec.limit, 0);
    if (b) fresh.size = b.size; // a hot subject stays hot across the hour
    this.remember(key, fresh);
    return fresh;
  }

  private lease(source: LeaseSource, subject: string, api: BucketSpec, uploads: BucketSpec, b: Bucket) {
    const before = { size: b.size, leasedAt: b.leasedAt };
    const want = this.nextSize(b);
    const requests = [
      { ...api, need: 0, want },
      { ...uploads, need: 0, want: 0 },
    ];
    const pending = within(source.lease(requests), this.leaseTimeoutMs)
      .then((res) => {
        this.absorb(subject, uploads, this.current(subject, uploads), res.buckets[1]);
        const granted = res.buckets[0].granted;
        // The object's share cap bounds the size: growing past it would only lease again and again.
        if (granted > 0 && granted < want) b.size = granted;
        return { bucket: this.absorb(subject, api, b, res.buckets[0]), granted };
      })
      .catch((err) => {
        // Nothing was taken in: the next lease is sized as if this one had not been asked for.
        if (b.size === want) Object.assign(b, before);
        throw err;
      })
      .finally(() => {
        if (b.pending === pending) b.pending = undefined;
      });
    b.pending = pending;
    return pending;
  }

  /** Leases the next block in the background once fewer than half of the last one are left. */
  private refillIfLow(source: LeaseSource, subject: string, api: BucketSpec, uploads: BucketSpec, b: Bucket, waitUntil?: WaitUntil) {
    if (b.pending || !waitUntil || b.known >= b.limit || b.spare >= Math.ceil(b.size / 2)) return;
    waitUntil(this.lease(source, subject, api, uploads, b).catch((err) => console.error("rate limit lease failed", err)));
  }

  private nextSize(b: Bucket): number {
    const now = Date.now();
    // A subject seen once gets one call; one that comes back, at least the floor, and double while busy.
    const floor = Math.max(1, Math.floor(b.limit / MIN_LEASE_SHARE));
    b.size = b.size === 0 ? 1 : now - b.leasedAt < QUICK_MS ? Math.min(MAX_LEASE, b.size * 2) : Math.max(floor, b.size >> 1);
    b.leasedAt = now;
    return b.size;
  }

  /**
   * Takes in what the object said. The object's clock decides the window: a reply for another window than
   * the bucket's (a later one, or an earlier one when this isolate's clock ran ahead) starts a bucket for it.
   */
  private absorb(subject: string, spec: BucketSpec, b: Bucket, g: LeaseGrant): Bucket {
    if (b.reset === 0) b.reset = g.reset;
    else if (g.reset !== b.reset) {
      const other = new Bucket(spec.limit, g.reset);
      other.size = b.size;
      this.remember(keyOf(subject, spec), other);
      b = other;
    }
    b.add(g);
    return b;
  }

  private remember(key: string, b: Bucket) {
    this.buckets.delete(key);
    this.buckets.set(key, b);
    if (this.buckets.size <= MAX_BUCKETS) return;
    const now = Date.now();
    for (const [k, old] of this.buckets) if (old.reset > 0 && old.reset * 1000 <= now) this.buckets.delete(k);
    // Down to 90 %, so a flood of new subjects does not sweep the whole map on every request.
    for (const k of this.buckets.keys()) {
      if (this.buckets.size <= MAX_BUCKETS * 0.9) break;
      this.buckets.delete(k);
    }
  }
}

const keyOf = (subject: string, spec: BucketSpec) => `${subject}\n${spec.name}\n${spec.limit}\n${spec.windowSeconds}`;

/** This isolate's leases, shared by every request it serves. */
export const leases = new LeaseHolder();

/** `work`, or a rejection once `ms` have passed without its answer. */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the rate limiter did not answer a lease within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
