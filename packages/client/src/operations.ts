// The API by operationId: the route definitions name each operation once, docs/openapi.json carries them, and
// operations.gen.ts maps each to its method and path, so a caller never writes a path by hand.
import type { Client, FetchResponse, MaybeOptionalInit } from "openapi-fetch";
import { operations } from "./operations.gen.js";
import type { paths } from "./schema.gen.js";

type Operations = typeof operations;
/** An operationId of the API, e.g. "albums.get". */
export type OperationId = keyof Operations;
type MethodOf<K extends OperationId> = Operations[K]["method"];
type PathOf<K extends OperationId> = Operations[K]["path"];
type Operation<K extends OperationId> = Extract<paths[PathOf<K>][MethodOf<K>], Record<string | number, any>>;
type RequiredKeysOf<T> = { [P in keyof T]-?: {} extends Pick<T, P> ? never : P }[keyof T];
/** The call's init (params, body, parseAs…), optional when the operation requires none, as openapi-fetch has it. */
type InitArgs<Init> = RequiredKeysOf<Init> extends never ? [(Init & { [key: string]: unknown })?] : [Init & { [key: string]: unknown }];
/** The path parameters of operation K (each written as a string: a number is one too). */
export type PathParams<K extends OperationId> = Operation<K> extends { parameters: { path?: infer P } }
  ? P extends Record<string, unknown> ? { [N in keyof P]: string | number } : never
  : never;

/** Calls operation `id` through an openapi-fetch client of the API: typed as `client.GET(path, init)` is. */
export function call<K extends OperationId, Init extends MaybeOptionalInit<paths[PathOf<K>], MethodOf<K>>>(
  client: Client<paths>,
  id: K,
  ...init: InitArgs<Init>
): Promise<FetchResponse<Operation<K>, Init, `${string}/${string}`>> {
  const { method, path } = operations[id];
  return (client.request as (m: string, p: string, i?: unknown) => Promise<never>)(method, path, init[0]);
}

/** Operation `id`'s path under the API's base, its parameters filled in: pathOf("files.download", { id }). */
export function pathOf<K extends OperationId>(id: K, ...params: PathParams<K> extends never | undefined ? [] : [PathParams<K>]): string {
  const values = (params[0] ?? {}) as Record<string, string | number>;
  return operations[id].path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (values[name] === undefined) throw new TypeError(`pathOf("${id}"): the path parameter ${name} is missing`);
    return encodeURIComponent(String(values[name]));
  });
}

/** The method and path of operation `id`, as docs/openapi.json has them (method in lower case). */
export const operationOf = <K extends OperationId>(id: K): Operations[K] => operations[id];
