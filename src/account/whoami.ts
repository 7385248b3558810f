// GET /account/whoami: which account a credential belongs to. GET /account is session-only (decisions.md), so
// without this an API key's holder (the command line's `imghost login`, a CI job) cannot learn whose key it is.
// Any API key may ask, whatever its permissions: it names its own account, nothing else.
import { z } from "@hono/zod-openapi";
import { defineRoute } from "../platform/http/route-errors";
import { and, eq } from "drizzle-orm";
import { apiKeys } from "../db/schema";
import { callerUser, signedIn } from "../middleware/guards";
import { bearer, errors, json } from "../platform/http/openapi";
import { apiRouter } from "../platform/http/router";
import { mountAt } from "../platform/http/mount";
import { Permission } from "../keys/schemas";

export const whoamiRoutes = apiRouter();
export const whoamiMount = mountAt("/account", whoamiRoutes);

const Whoami = z
  .object({
    user: z.object({ id: z.string(), username: z.string(), email: z.string(), plan: z.string() }),
    via: z.enum(["session", "api_key"]).openapi({ description: "The credential the request came with" }),
    key: z
      .object({ id: z.string(), name: z.string(), prefix: z.string(), permissions: z.array(Permission), expiresAt: z.string().nullable() })
      .nullable()
      .openapi({ description: "The API key the request came with (null for a session)" }),
  })
  .openapi("Whoami");

whoamiRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/whoami",
    operationId: "account.whoami",
    tags: ["Account"],
    summary: "The account (and API key) a credential belongs to",
    description: "Works with a session or any API key. Tells a key's holder whose key it is and what it may do.",
    security: bearer,
    middleware: [signedIn()] as const,
    responses: { 200: json(Whoami, "The caller"), ...errors(401, 429) },
  }),
  async (c) => {
    const principal = c.get("principal");
    const { id, username, email, plan } = callerUser(principal);
    let key = null;
    if (principal.kind === "key") {
      const row = await c.get("dbs")
        .directory()
        .select({ id: apiKeys.id, name: apiKeys.name, prefix: apiKeys.prefix, expiresAt: apiKeys.expiresAt })
        .from(apiKeys)
        .where(and(eq(apiKeys.id, principal.keyId), eq(apiKeys.userId, id)))
        .get();
      // The principal's permissions are those the request was decided by; the row only adds its name.
      if (row) key = { id: row.id, name: row.name, prefix: row.prefix, permissions: principal.permissions, expiresAt: row.expiresAt?.toISOString() ?? null };
    }
    return c.json({ user: { id, username, email, plan }, via: principal.kind === "key" ? ("api_key" as const) : ("session" as const), key }, 200);
  },
);
