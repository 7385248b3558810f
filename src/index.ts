// Worker entry: HTTP (all four public addresses), the queue consumer and the cron trigger.
import { createApp } from "./app";
import { dispatch } from "./platform/http/dispatch";
import { handleQueue } from "./jobs/queue";
import type { JobMessage } from "./platform/data/job-messages";
import { runScheduled } from "./jobs/scheduled";
import { outboundConfigProblem } from "./platform/outbound/outbound-address";
import { mailConfigProblem } from "./mail/sender";

export { RateLimiter } from "./limits/rate-limiter";
export { ViewCounter } from "./serving/view-counter";
export { TusUploadState } from "./uploads/tus/upload-state";

const app = createApp();

/**
 * A setting that must not reach production, or one production cannot do without (mail), stops the worker, loudly,
 * on every entry (Workers have no start).
 */
let checked: { env: Env; problem: string | null } | undefined;

/** Checked once per env object (the isolate's, on every request), not per request: it parses MAIL_FROM and the outbound list. */
function refusedConfig(env: Env): string | null {
  if (checked?.env !== env) checked = { env, problem: outboundConfigProblem(env) ?? mailConfigProblem(env) };
  if (checked.problem) console.error(`refusing to run: ${checked.problem}`);
  return checked.problem;
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
