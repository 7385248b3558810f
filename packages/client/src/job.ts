// One upload as the flows (direct.ts, tus.ts) see it, made by upload.ts: apart, so that no flow imports upload.ts.
import type { ByteSource } from "./source.js";
import type { UploadOptions } from "./types.js";

export type UploadJob = {
  source: ByteSource;
  filename: string;
  mime: string;
  options: UploadOptions;
  /** The key the upload is remembered under for options.resume, when it has one. */
  resumeKey?: string;
  signal?: AbortSignal;
  /** Reports `sentBytes` of source.size to onProgress, never going back. */
  progress(sentBytes: number): void;
};
