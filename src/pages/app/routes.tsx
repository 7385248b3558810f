// The web application (/app/*, /verify-email, /reset-password): one Hono sub-app per area, behind one shared context (security
// headers, no-store, csrf(), the page session resolved once). Pages talk to the API in-process (api.ts).
import { Hono, type Context } from "hono";
import type { AppEnv } from "../../platform/http/env";
import { appContext } from "./context";
import { authPages } from "./auth";
import { uploadPages } from "./upload";
import { filePages } from "./files";
import { albumPages } from "./albums";
import { keyPages } from "./keys";
import { webhookPages } from "./webhooks";
import { accountPages } from "./account";
import { moderationPages } from "./moderation";
import { passwordPages } from "./password";
import { insightsPages } from "./insights";
import { searchPages } from "./search";

export function appPages(deps: { headers: (c: Context<AppEnv>) => void }) {
  const app = new Hono<AppEnv>();
  const context = appContext(deps.headers);
  app.use("/app", context);
  app.use("/app/*", context);
  app.use("/verify-email", context);
  app.use("/reset-password", context);

  app.get("/app", (c) => c.redirect("/app/upload", 303));
  for (const area of [authPages, passwordPages, uploadPages, searchPages, filePages, albumPages, keyPages, webhookPages, accountPages, moderationPages, insightsPages]) app.route("/", area);
  return app;
}
