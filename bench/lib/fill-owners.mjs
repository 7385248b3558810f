// Who uploads the fill bench's files (bench/fill.bench.mjs), in upload order: a few huge owners, many small ones,
// and the measured owners. Each measured owner has the same number of files, spread evenly over the shard's
// files up to the size it is measured at (10 k, 100 k, 1 M), so every stage times an owner of the same size
// whose rows lie across the whole table, as a long-lived account's do: only the shard around it grows.
import { randomId } from "./fill-random.mjs";

/** Files of each measured owner. */
export const MEASURED_FILES = 2_000;
/** Shares of every file uploaded, of the three huge owners (100 k, 40 k and 20 k files at 1 M). */
const HUGE_SHARES = [0.1, 0.04, 0.02];
/** Small owners upload side by side; each has a size drawn log-uniformly between 1 and this. */
const SMALL_MAX_FILES = 500;
const SMALL_ACTIVE = 256;

export class Owners {
  /**
   * @param {number[]} stages the shard sizes the bench measures at, ascending
   * @param {() => number} random uniform in [0, 1)
   */
  constructor(stages, random) {
    this.random = random;
    this.all = [];
    // Measured owner k uploads every `step`-th file below stages[k], at its own residue: no two share a file.
    this.measured = stages.map((size, k) => ({ ...this.create("measured"), size, step: size / MEASURED_FILES, residue: k }));
    for (const m of this.measured) if (!Number.isInteger(m.step) || m.step <= stages.length) throw new Error(`stage ${m.size}: step ${m.step}`);
    this.huge = HUGE_SHARES.map((share) => ({ ...this.create("huge"), share }));
    this.active = [];
  }

  create(kind) {
    const owner = { kind, userId: `usr_${randomId(this.random)}`, key: null, ordinal: 0, storageUsed: 0, last: null, album: null, target: 0 };
    this.all.push(owner);
    return owner;
  }

  /** The owner of the file at upload position `p` (0-based). */
  ownerAt(p) {
    for (const m of this.measured) if (p < m.size && p % m.step === m.residue) return m;
    let r = this.random();
    for (const h of this.huge) {
      if (r < h.share) return h;
      r -= h.share;
    }
    return this.small();
  }

  small() {
    const i = Math.floor(this.random() * SMALL_ACTIVE);
    let owner = this.active[i];
    if (!owner || owner.ordinal >= owner.target) {
      owner = this.create("small");
      owner.target = Math.max(1, Math.floor(Math.exp(this.random() * Math.log(SMALL_MAX_FILES))));
      this.active[i] = owner;
    }
    return owner;
  }

  counts() {
    const by = (kind) => this.all.filter((o) => o.kind === kind && o.ordinal > 0);
    const small = by("small");
    return {
      owners: this.all.filter((o) => o.ordinal > 0).length,
      small: small.length,
      smallMedianFiles: small.map((o) => o.ordinal).sort((a, b) => a - b)[Math.floor(small.length / 2)] ?? 0,
      huge: this.huge.map((h) => h.ordinal),
      measured: this.measured.map((m) => m.ordinal),
    };
  }
}
