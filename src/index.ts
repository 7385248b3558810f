// Worker entry: HTTP (all four public addresses), the queue consumer and the cron trigger.
import { createApp } from "./app";
import { dispatch } from "./platform/dispatch";
import { handleQueue } from "./jobs/queue";
import type { JobMessage } from "./platform/job-messages";
import { runScheduled } from "./jobs/scheduled";

export { RateLimiter } from "./limits/rate-limiter";
export { ViewCounter } from "./serving/view-counter";

const app = createApp();

export default {
  fetch(request, env, ctx) {
    return app.fetch(dispatch(request, env), env, ctx);
  },
  async queue(batch, env) {
    await handleQueue(batch, env);
  },
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(runScheduled(env, controller.scheduledTime));
  },
} satisfies ExportedHandler<Env, JobMessage>;
