// One Durable Object per tus upload: the offset, the R2 parts so far and the "held" bytes not yet filling a part (R2
// wants equal parts of at least 5 MiB, tus sends any size: docs/uploads.md § Resumable uploads). Every offset the
// worker answers was written here first (the RPC answers once the write is durable), so it survives a dying worker.
// One append at a time (an in-memory lock, gone with its request if the object restarts). Part numbers follow the
// parts kept, so a part uploaded by an append that then failed is uploaded again under its number, never completed.
import { DurableObject } from "cloudflare:workers";
import { TUS } from "../../config/uploads";
import { appendChunks, finish, type AppendOptions, type AppendResult, type Assembled, type Assembly, type ChunkBody, type KeptPart } from "./assembly";
import { bytesToHex } from "../../platform/crypto/crypto";
import { rowsOf } from "./bytes";

export type TusInit = { fileId: string; storeKey: string; r2UploadId: string; length: number; metadata: string; expiresAt: number };
export type TusStatus = TusInit & { offset: number; assembled: Assembled | null };

type StateRow = { file_id: string; store_key: string; r2_upload_id: string; length: number; metadata: string; expires_at: number; offset: number; assembled_etag: string | null };

/** The upload's state was deleted under a running append. */
class UploadGone extends Error {}

/** The state of the tus upload of `fileId` (one object per upload, named by its file). */
export const tusState = (env: Pick<Env, "TUS_UPLOADS">, fileId: string) => env.TUS_UPLOADS.get(env.TUS_UPLOADS.idFromName(fileId));

export class TusUploadState extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private lock: Promise<void> = Promise.resolve();
  /**
   * The file's SHA-256 so far, fed with each part's bytes as it is kept, in order: at completion it is the file's
   * digest with no read-back of the object. It lives in memory only; an object that restarted mid-upload (or a
   * part kept without its bytes) drops it, and the worker then hashes the assembled object instead.
   */
  private fileHash: { writer: WritableStreamDefaultWriter<Uint8Array>; digest: Promise<ArrayBuffer>; upTo: number; fed: Promise<void> } | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.createTables();
  }

  /** Again after deleteAll (which drops the tables too), so a late request finds an empty upload, not an error. */
  private createTables() {
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS upload (
         id INTEGER PRIMARY KEY CHECK (id = 1), file_id TEXT NOT NULL, store_key TEXT NOT NULL, r2_upload_id TEXT NOT NULL,
         length INTEGER NOT NULL, metadata TEXT NOT NULL, expires_at INTEGER NOT NULL, offset INTEGER NOT NULL DEFAULT 0,
         assembled_etag TEXT);
       CREATE TABLE IF NOT EXISTS parts (part_number INTEGER PRIMARY KEY, etag TEXT NOT NULL, bytes INTEGER NOT NULL);
       CREATE TABLE IF NOT EXISTS held (seq INTEGER PRIMARY KEY, bytes BLOB NOT NULL);
       CREATE TABLE IF NOT EXISTS digest (id INTEGER PRIMARY KEY CHECK (id = 1), sha256 TEXT NOT NULL);`,
    );
  }

  /** Records a new upload (a repeat changes nothing) and arms the alarm that deletes this state after expiry. */
  async open(init: TusInit): Promise<void> {
    this.sql.exec(
      "INSERT OR IGNORE INTO upload (id, file_id, store_key, r2_upload_id, length, metadata, expires_at) VALUES (1, ?, ?, ?, ?, ?, ?)",
      init.fileId,
      init.storeKey,
      init.r2UploadId,
      init.length,
      init.metadata,
      init.expiresAt,
    );
    await this.ctx.storage.setAlarm(init.expiresAt + TUS.stateGraceSeconds * 1000);
  }

  status(): TusStatus | null {
    const row = this.row();
    if (!row) return null;
    return {
      fileId: row.file_id,
      storeKey: row.store_key,
      r2UploadId: row.r2_upload_id,
      length: row.length,
      metadata: row.metadata,
      expiresAt: row.expires_at,
      offset: row.offset,
      assembled: row.assembled_etag ? { etag: row.assembled_etag, sha256: this.storedDigest() } : null,
    };
  }

  /** Appends a chunk at `offset`; see AppendResult for every outcome. */
  async append(offset: number, body: ChunkBody, options: AppendOptions): Promise<AppendResult> {
    const result = await this.exclusive(() => this.appendLocked(offset, body, options));
    if (result === "busy" && body instanceof ReadableStream) await body.cancel().catch(() => undefined);
    return result === "busy" ? { kind: "busy" } : result;
  }

  /**
   * Assembles an upload whose every byte is in but whose assembly did not happen (the request that brought the
   * last byte failed after keeping it). Answers the etag, or null while bytes are missing.
   */
  async finishIfFull(): Promise<Assembled | null | "busy"> {
    return this.exclusive(async () => {
      const row = this.row();
      if (!row || row.offset < row.length) return null;
      if (row.assembled_etag) return { etag: row.assembled_etag, sha256: this.storedDigest() };
      const a = this.assembly(row);
      return finish(a, a.held, a.partsKept.n + 1);
    });
  }

  /** Runs `work` when no other append or finish of this upload runs, waiting at most TUS.lockWaitMs. */
  private async exclusive<T>(work: () => Promise<T>): Promise<T | "busy"> {
    const previous = this.lock;
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    this.lock = previous.then(() => mine);
    let timer: ReturnType<typeof setTimeout> | null = null;
    const acquired = await Promise.race([
      previous.then(() => true),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), TUS.lockWaitMs))),
    ]);
    clearTimeout(timer);
    if (!acquired) {
      void previous.then(release); // keeps the queue's order: this turn passes as soon as it comes
      return "busy";
    }
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** Forgets the upload (terminated, finished or expired): its R2 parts are the caller's to abort. */
  async destroy(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.createTables();
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
    this.createTables();
  }

  private row(): StateRow | null {
    return (this.sql.exec<StateRow>("SELECT * FROM upload WHERE id = 1").toArray()[0] as StateRow | undefined) ?? null;
  }

  private async appendLocked(offset: number, body: ChunkBody, options: AppendOptions): Promise<AppendResult> {
    const row = this.row();
    const refuse = async (result: AppendResult) => (body instanceof ReadableStream && (await body.cancel().catch(() => undefined)), result);
    if (!row) return refuse({ kind: "missing" });
    if (row.assembled_etag) {
      return refuse(
        offset === row.length
          ? { kind: "complete", offset: row.length, etag: row.assembled_etag, sha256: this.storedDigest() }
          : { kind: "conflict", offset: row.length },
      );
    }
    if (Date.now() >= row.expires_at) return refuse({ kind: "expired" });
    if (offset !== row.offset) return refuse({ kind: "conflict", offset: row.offset });
    if (options.declaredBytes !== null && offset + options.declaredBytes > row.length) return refuse({ kind: "too_long", length: row.length });

    let result: AppendResult;
    try {
      result = await appendChunks(this.assembly(row), body, options);
    } catch (err) {
      // Terminated (or expired by the cron) while this chunk was arriving: nothing may be kept, or R2 refused the
      // aborted upload's part.
      if (err instanceof UploadGone || this.row() === null) return { kind: "missing" };
      throw err;
    }
    return result;
  }

  private assembly(row: StateRow): Assembly {
    return {
      length: row.length,
      offset: row.offset,
      partsKept: this.sql.exec<{ n: number; bytes: number }>("SELECT COUNT(*) AS n, COALESCE(SUM(bytes), 0) AS bytes FROM parts").one(),
      held: this.sql.exec<{ bytes: ArrayBuffer }>("SELECT bytes FROM held ORDER BY seq").toArray().map((r) => new Uint8Array(r.bytes)),
      r2: this.env.BUCKET.resumeMultipartUpload(row.store_key, row.r2_upload_id),
      keep: (parts, held) => this.keep(parts, held),
      assemble: async (complete) => {
        const parts = this.sql.exec<{ part_number: number; etag: string }>("SELECT part_number, etag FROM parts ORDER BY part_number").toArray();
        let object: R2Object;
        try {
          object = await complete(parts.map((p) => ({ partNumber: p.part_number, etag: p.etag })));
        } catch (err) {
          // Completed before, by a call whose answer never got recorded here (the object restarted in between):
          // R2 knows the upload no more, but the object is there, whole.
          const stored = await this.env.BUCKET.head(row.store_key);
          if (!stored || stored.size !== row.length) throw err;
          object = stored;
        }
        const sha256 = await this.fileDigest(row.length).catch(() => null);
        this.ctx.storage.transactionSync(() => {
          this.sql.exec("UPDATE upload SET assembled_etag = ? WHERE id = 1", object.httpEtag);
          if (sha256) this.sql.exec("INSERT OR REPLACE INTO digest (id, sha256) VALUES (1, ?)", sha256);
          this.sql.exec("DELETE FROM held");
        });
        return { etag: object.httpEtag, sha256 };
      },
    };
  }

  /** Feeds a part kept at byte `start` to the running file hash, or drops the hash when it cannot follow. */
  private hashPart(start: number, data: Uint8Array | undefined) {
    if (start === 0 && data) {
      const stream = new crypto.DigestStream("SHA-256");
      this.fileHash = { writer: stream.getWriter(), digest: stream.digest, upTo: 0, fed: Promise.resolve() };
    }
    const hash = this.fileHash;
    if (!hash) return;
    if (!data || hash.upTo !== start) {
      this.fileHash = null;
      hash.writer.abort().catch(() => undefined);
      return;
    }
    hash.fed = hash.fed.then(() => hash.writer.write(data));
    hash.upTo += data.byteLength;
  }

  /** The file's hex SHA-256 when the running hash covered all `length` bytes, else null. */
  private async fileDigest(length: number): Promise<string | null> {
    const hash = this.fileHash;
    this.fileHash = null;
    if (!hash || hash.upTo !== length) return null;
    await hash.fed;
    await hash.writer.close();
    return bytesToHex(new Uint8Array(await hash.digest));
  }

  private storedDigest(): string | null {
    return this.sql.exec<{ sha256: string }>("SELECT sha256 FROM digest WHERE id = 1").toArray()[0]?.sha256 ?? null;
  }

  /** Keeps parts and the new held bytes in one transaction; the offset follows from them. */
  private keep(parts: KeptPart[], held: Uint8Array[]): number {
    let start = this.sql.exec<{ bytes: number }>("SELECT COALESCE(SUM(bytes), 0) AS bytes FROM parts").one().bytes;
    for (const p of parts) {
      this.hashPart(start, p.data);
      start += p.bytes;
    }
    return this.ctx.storage.transactionSync(() => {
      if (!this.row()) throw new UploadGone(); // terminated or expired while the chunk arrived: nothing to keep
      for (const p of parts) this.sql.exec("INSERT OR REPLACE INTO parts (part_number, etag, bytes) VALUES (?, ?, ?)", p.partNumber, p.etag, p.bytes);
      this.sql.exec("DELETE FROM held");
      let seq = 0;
      for (const row of rowsOf(held, TUS.heldRowBytes)) this.sql.exec("INSERT INTO held (seq, bytes) VALUES (?, ?)", seq++, row);
      const heldBytes = held.reduce((n, c) => n + c.byteLength, 0);
      const partBytes = this.sql.exec<{ bytes: number }>("SELECT COALESCE(SUM(bytes), 0) AS bytes FROM parts").one().bytes;
      this.sql.exec("UPDATE upload SET offset = ? WHERE id = 1", partBytes + heldBytes);
      return partBytes + heldBytes;
    });
  }
}
