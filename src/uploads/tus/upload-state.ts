// One Durable Object per tus upload: the offset, the R2 parts assembled so far and the bytes that do not fill a
// part yet ("held" bytes). tus clients send chunks of any size; R2 wants equal parts of at least 5 MiB but the
// last, so chunks are cut into TUS.partBytes parts here and the remainder waits in this object's SQLite for the
// next chunk. Every offset the worker answers was written here first (the RPC answers after the write is
// durable), so it survives a worker that dies right after answering.
//
// One append runs at a time (an in-memory lock: if the object restarts, the lock goes with the request that held
// it). Part numbers follow the parts kept, so a part uploaded by an append that then failed (a checksum mismatch,
// a broken body) is simply uploaded again under the same number by the next one, and never completed.
import { DurableObject } from "cloudflare:workers";
import { TUS } from "../../config";
import { appendChunks, finish, type AppendOptions, type AppendResult, type Assembly } from "./assembly";
import { rowsOf } from "./bytes";

export type TusInit = { fileId: string; storeKey: string; r2UploadId: string; length: number; metadata: string; expiresAt: number };
export type TusStatus = TusInit & { offset: number; assembled: { etag: string } | null };

type StateRow = { file_id: string; store_key: string; r2_upload_id: string; length: number; metadata: string; expires_at: number; offset: number; assembled_etag: string | null };

/** The state of the tus upload of `fileId` (one object per upload, named by its file). */
export const tusState = (env: Pick<Env, "TUS_UPLOADS">, fileId: string) => env.TUS_UPLOADS.get(env.TUS_UPLOADS.idFromName(fileId));

export class TusUploadState extends DurableObject<Env> {
  private readonly sql: SqlStorage;
  private lock: Promise<void> = Promise.resolve();

  /** Whether the tables exist: open() makes them, deleteAll() (destroy, alarm) drops them. Null: not looked yet. */
  private tables: boolean | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
  }

  /** Records a new upload (a repeat changes nothing) and arms the alarm that deletes this state after expiry. */
  async open(init: TusInit): Promise<void> {
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS upload (
         id INTEGER PRIMARY KEY CHECK (id = 1), file_id TEXT NOT NULL, store_key TEXT NOT NULL, r2_upload_id TEXT NOT NULL,
         length INTEGER NOT NULL, metadata TEXT NOT NULL, expires_at INTEGER NOT NULL, offset INTEGER NOT NULL DEFAULT 0,
         assembled_etag TEXT);
       CREATE TABLE IF NOT EXISTS parts (part_number INTEGER PRIMARY KEY, etag TEXT NOT NULL, bytes INTEGER NOT NULL);
       CREATE TABLE IF NOT EXISTS held (seq INTEGER PRIMARY KEY, bytes BLOB NOT NULL);`,
    );
    this.tables = true;
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
      assembled: row.assembled_etag ? { etag: row.assembled_etag } : null,
    };
  }

  /** Appends a chunk at `offset`; see AppendResult for every outcome. */
  async append(offset: number, body: ReadableStream<Uint8Array> | null, options: AppendOptions): Promise<AppendResult> {
    const result = await this.exclusive(() => this.appendLocked(offset, body, options));
    if (result === "busy") await body?.cancel().catch(() => undefined);
    return result === "busy" ? { kind: "busy" } : result;
  }

  /**
   * Assembles an upload whose every byte is in but whose assembly did not happen (the request that brought the
   * last byte failed after keeping it). Answers the etag, or null while bytes are missing.
   */
  async finishIfFull(): Promise<{ etag: string } | null | "busy"> {
    return this.exclusive(async () => {
      const row = this.row();
      if (!row || row.offset < row.length) return null;
      if (row.assembled_etag) return { etag: row.assembled_etag };
      const a = this.assembly(row);
      return { etag: await finish(a, a.held, a.partsKept.n + 1) };
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
    this.tables = false;
  }

  override async alarm(): Promise<void> {
    await this.ctx.storage.deleteAll();
    this.tables = false;
  }

  /**
   * The upload's row, or null before open() and after the end. deleteAll() drops the tables, and this instance may
   * answer again right after (HEAD after DELETE: 404, GET after a failed completion: "failed"), so reads look for
   * the table first instead of meeting "no such table"; nothing here makes the tables again for an ended upload.
   */
  private row(): StateRow | null {
    this.tables ??= this.sql.exec("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'upload'").toArray().length > 0;
    if (!this.tables) return null;
    return (this.sql.exec<StateRow>("SELECT * FROM upload WHERE id = 1").toArray()[0] as StateRow | undefined) ?? null;
  }

  private async appendLocked(offset: number, body: ReadableStream<Uint8Array> | null, options: AppendOptions): Promise<AppendResult> {
    const row = this.row();
    const refuse = async (result: AppendResult) => (await body?.cancel().catch(() => undefined), result);
    if (!row) return refuse({ kind: "missing" });
    if (row.assembled_etag) return refuse(offset === row.length ? { kind: "complete", offset: row.length, etag: row.assembled_etag } : { kind: "conflict", offset: row.length });
    if (Date.now() >= row.expires_at) return refuse({ kind: "expired" });
    if (offset !== row.offset) return refuse({ kind: "conflict", offset: row.offset });
    if (options.declaredBytes !== null && offset + options.declaredBytes > row.length) return refuse({ kind: "too_long", length: row.length });

    return appendChunks(this.assembly(row), body, options);
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
        const object = await complete(parts.map((p) => ({ partNumber: p.part_number, etag: p.etag })));
        this.sql.exec("UPDATE upload SET assembled_etag = ? WHERE id = 1", object.httpEtag);
        this.sql.exec("DELETE FROM held");
        return object.httpEtag;
      },
    };
  }

  /** Keeps parts and the new held bytes in one transaction; the offset follows from them. */
  private keep(parts: { partNumber: number; etag: string; bytes: number }[], held: Uint8Array[]): number {
    return this.ctx.storage.transactionSync(() => {
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
