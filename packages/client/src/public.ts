// What both entries export besides createClient.
export { ImghostError, errorFromBody } from "./errors.js";
export { DEFAULT_RETRY } from "./retry.js";
export { DEFAULT_TUS_FROM_BYTES } from "./upload.js";
export { DEFAULT_CHUNK_BYTES } from "./tus.js";
export { localStorageResumeStore } from "./resume.js";
export type * from "./types.js";
export { call, pathOf, operationOf } from "./operations.js";
export type { OperationId, PathParams } from "./operations.js";
