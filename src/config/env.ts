// The one way code reads a var or a secret: config(env), parsed once per isolate (./env-schema.ts).
// A single slot, not a map: an isolate has one env object, the same on every request, so after the first
// request a lookup is one comparison. Another object with the same values keeps the parse ({ ...env, DB }).
// Only the test suite changes the shared env in place between requests (test/limits/support.ts): under
// ENVIRONMENT test the entries (src/index.ts, configAtEntry) compare the values too.
import { CONFIG_NAMES, parseConfig, type RuntimeConfig } from "./env-schema";

export type { RuntimeConfig } from "./env-schema";

/** A bad var or secret, named; thrown by config(), answered 503 by the entries (configAtEntry). */
export class ConfigError extends Error {}

let slot: { env: object; values: unknown[]; result: ReturnType<typeof parseConfig> } | undefined;

function valuesOf(env: object): unknown[] {
  return CONFIG_NAMES.map((name) => (env as Record<string, unknown>)[name]);
}

function sameValues(env: object, values: unknown[]): boolean {
  for (let i = 0; i < CONFIG_NAMES.length; i++) if ((env as Record<string, unknown>)[CONFIG_NAMES[i]] !== values[i]) return false;
  return true;
}

/** Parses anew only when the values differ from the slot's (another env object with the same values keeps it). */
function load(env: object): ReturnType<typeof parseConfig> {
  if (slot && sameValues(env, slot.values)) {
    slot.env = env;
    return slot.result;
  }
  const values = valuesOf(env);
  const result = parseConfig(Object.fromEntries(CONFIG_NAMES.map((name, i) => [name, values[i]])));
  slot = { env, values, result };
  return result;
}

/** The isolate's config; throws a ConfigError naming every bad var. */
export function config(env: Env): RuntimeConfig {
  const result = slot?.env === env ? slot.result : load(env);
  if (!result.ok) throw new ConfigError(result.problem);
  return result.config;
}

/** At an entry (fetch, queue, cron): the config checked against env's current values, or why it is refused. */
export function configAtEntry(env: Env): { ok: true; config: RuntimeConfig } | { ok: false; problem: string } {
  if (slot?.env === env && slot.result.ok && slot.result.config.environment !== "test") return slot.result;
  return load(env);
}
