import { defineRoute } from "../platform/http/route-errors";
import { eq } from "drizzle-orm";
import type { AppEnv } from "../platform/http/env";
import { sessionOnly, sessionPrincipal } from "../middleware/guards";
import { bearer, errors, json, jsonBody } from "../platform/http/openapi";
import { apiRouter } from "../platform/http/router";
import { mountAt } from "../platform/http/mount";
import { AccountBody, AccountDeleted, AccountPatch, AccountUpdated, DeleteAccountBody } from "./schemas";
import { AccountSchema } from "../auth/schemas";
import { exportStream } from "./export";
import { deleteAccount } from "./delete";
import { accountResource, findUserById } from "../auth/queries";
import { forgetUser } from "../auth/principal-records";
import { users } from "../db/schema";
import { ApiError, unauthorized } from "../platform/errors/errors";
import { z } from "@hono/zod-openapi";
import { sessionLiveAtPrimary } from "../auth/middleware";

export const accountRoutes = apiRouter();
export const accountMount = mountAt("/account", accountRoutes);
const tags = ["Account"];

accountRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/",
    operationId: "account.get",
    tags,
    summary: "The signed-in user's account",
    security: bearer,
    middleware: [sessionOnly()] as const,
    responses: { 200: json(AccountBody, "The account"), ...errors(401, 403) },
  }),
  async (c) => {
    const user = await findUserById(c.get("dbs").directory(), sessionPrincipal(c.get("principal")).user.id);
    if (!user) throw unauthorized();
    return c.json({ user: accountResource(user) }, 200);
  },
);

accountRoutes.openapi(
  defineRoute({
    method: "patch",
    path: "/",
    operationId: "account.update",
    tags,
    summary: "Change username, age confirmation or safe mode",
    security: bearer,
    middleware: [sessionOnly()] as const,
    request: { body: jsonBody(AccountPatch) },
    errors: ["username_taken"],
    responses: { 200: json(AccountUpdated, "Updated"), ...errors(400, 401, 403, 409) },
  }),
  async (c) => {
    const id = sessionPrincipal(c.get("principal")).user.id;
    const patch = c.req.valid("json");
    let updated;
    try {
      updated = await c.get("dbs")
        .directory()
        .update(users)
        .set({ ...patch, updatedAt: new Date() })
        .where(eq(users.id, id))
        .returning()
        .get();
    } catch (err) {
      if (String((err as { cause?: unknown })?.cause ?? err).includes("UNIQUE constraint failed")) {
        throw new ApiError("username_taken", "This username is taken");
      }
      throw err;
    }
    if (!updated) throw unauthorized();
    // safeMode, ageConfirmed and username are in the principal: the next request must see them.
    await forgetUser(c.env, id);
    return c.json({ message: "Account updated", user: accountResource(updated) }, 200);
  },
);

accountRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/export",
    operationId: "account.export",
    tags,
    summary: "Everything held about you, as one JSON document (GDPR export)",
    description:
      "Streamed as it is read: profile, files (with their links, including deleted ones not yet purged), albums and their files, " +
      "API keys (metadata only), sessions, reports you filed, plan changes, administrative changes to the account and mail " +
      "subjects. No secrets: no password or key hashes, no tokens.",
    security: bearer,
    middleware: [sessionOnly()] as const,
    responses: {
      200: { description: "The export (application/json, sent as an attachment)", content: { "application/json": { schema: z.object({}).loose().openapi("AccountExport") } } },
      ...errors(401, 403, 429),
    },
  }),
  (c) => {
    const user = sessionPrincipal(c.get("principal")).user;
    const day = new Date().toISOString().slice(0, 10);
    const headers = {
      "Content-Type": "application/json; charset=utf-8",
      "Content-Disposition": `attachment; filename="account-export-${day}.json"`,
      "Cache-Control": "no-store",
    };
    // A streamed body, not c.json(): the route's typing expects JSON built in memory, hence the cast.
    return new Response(exportStream(c.get("dbs").directoryAndShard(user.shard), c.env, user.id), { status: 200, headers }) as never;
  },
);

accountRoutes.openapi(
  defineRoute({
    method: "delete",
    path: "/",
    operationId: "account.delete",
    tags,
    summary: "Delete your account",
    description:
      "Needs the password again. Revokes every session and API key, soft-deletes your files and albums (they read 410 at once; " +
      "stored objects are purged after the retention window) and frees your e-mail address for a new signup.",
    security: bearer,
    middleware: [sessionOnly(), sessionLiveAtPrimary()] as const,
    request: { body: jsonBody(DeleteAccountBody) },
    errors: ["invalid_password"],
    responses: {
      200: json(AccountDeleted, "Deleted"),
      ...errors(400, 401, 403, 429),
    },
  }),
  async (c) => {
    const p = sessionPrincipal(c.get("principal"));
    const deleted = await deleteAccount(c.get("dbs").directoryAndShards(), c.env, p.user.id, c.req.valid("json").password, p.ip);
    return c.json({ message: "Your account has been deleted", deleted }, 200);
  },
);
