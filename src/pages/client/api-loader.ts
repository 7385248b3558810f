// Loads api.js (api-module.ts) once, from the address the page's script tag names (data-api); a failed load is
// tried again at the next call.
type ApiModule = typeof import("./api-module");

let url: string | null = null;
let loading: Promise<ApiModule> | null = null;

export function setApiUrl(address: string | null): void {
  url = address;
}

export function loadApi(): Promise<ApiModule> {
  if (!url) return Promise.reject(new Error("This page cannot reach the API (no api.js)"));
  loading ??= (import(url) as Promise<ApiModule>).catch((err: unknown) => {
    loading = null;
    throw new Error(`The page's script did not load (${err instanceof Error ? err.message : String(err)})`);
  });
  return loading;
}

/** A failure as a row shows it: the API's status (0: no answer) and a message for a person. */
export function failureOf(err: unknown): { status: number; message: string } {
  if (err instanceof Error && typeof (err as { status?: unknown }).status === "number") return err as Error & { status: number };
  return { status: 0, message: String((err instanceof Error && err.message) || err) };
}
