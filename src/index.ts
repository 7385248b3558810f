// Worker entry: HTTP (all four public addresses), the queue consumer and the cron trigger.
import { createApp } from "./app";
import { dispatch } from "./platform/http/dispatch";
import { handleQueue } from "./jobs/queue";
import type { JobMessage } from "./platform/data/job-messages";
import { runScheduled } from "./jobs/scheduled";
import { configAtEntry } from "./config/env";
import { mailBindingProblem } from "./mail/sender";

export { RateLimiter } from "./limits/rate-limiter";
export { ViewCounter } from "./serving/view-counter";
export { TusUploadState } from "./uploads/tus/upload-state";

const app = createApp();

/**
 * A bad var, a setting that must not reach production, or one production cannot do without (mail) stops the
 * worker, loudly, on every entry (Workers have no start). The config is parsed once; this is a cheap check after.
 */
function refusedConfig(env: Env): string | null {
  const checked = configAtEntry(env);
  const problem = checked.ok ? mailBindingProblem(env, checked.config) : checked.problem;
  if (problem) console.error(`refusing to run: ${problem}`);
  return problem;
}

export default {
  fetch(request, env, ctx) {
    const refused = refusedConfig(env);
    if (refused) return new Response(`Service misconfigured: ${refused}\n`, { status: 503, headers: { "content-type": "text/plain" } });
    return app.fetch(dispatch(request, env), env, ctx);
  },
  async queue(batch, env) {
    const refused = refusedConfig(env);
    if (refused) throw new Error(refused);
    await handleQueue(batch, env);
  },
  async scheduled(controller, env, ctx) {
    const refused = refusedConfig(env);
    if (refused) throw new Error(refused);
    ctx.waitUntil(runScheduled(env, controller.scheduledTime));
  },
} satisfies ExportedHandler<Env, JobMessage>;
