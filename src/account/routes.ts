import { OpenAPIHono, createRoute } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import type { AppEnv } from "../env";
import { sessionOnly, sessionPrincipal } from "../middleware/guards";
import { bearer, errors, json, jsonBody } from "../platform/openapi";
import { validationHook } from "../platform/validation";
import { AccountPatch, AccountSchema } from "./schemas";
import { accountResource, findUserById } from "../auth/queries";
import { users } from "../db/schema";
import { conflict, unauthorized } from "../platform/errors";
import { z } from "@hono/zod-openapi";

export const accountRoutes = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });
const tags = ["Account"];

accountRoutes.openapi(
  createRoute({
    method: "get",
    path: "/",
    tags,
    summary: "The signed-in user's account",
    security: bearer,
    middleware: [sessionOnly()] as const,
    responses: { 200: json(z.object({ user: AccountSchema }), "The account"), ...errors(401, 403) },
  }),
  async (c) => {
    const user = await findUserById(c.get("db"), sessionPrincipal(c.get("principal")).user.id);
    if (!user) throw unauthorized();
    return c.json({ user: accountResource(user) }, 200);
  },
);

accountRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/",
    tags,
    summary: "Change username, age confirmation or safe mode",
    security: bearer,
    middleware: [sessionOnly()] as const,
    request: { body: jsonBody(AccountPatch) },
    responses: { 200: json(z.object({ message: z.string(), user: AccountSchema }), "Updated"), ...errors(400, 401, 403, 409) },
  }),
  async (c) => {
    const id = sessionPrincipal(c.get("principal")).user.id;
    const patch = c.req.valid("json");
    let updated;
    try {
      updated = await c
        .get("db")
        .update(users)
        .set({ ...patch, updatedAt: new Date() })
        .where(eq(users.id, id))
        .returning()
        .get();
    } catch (err) {
      if (String((err as { cause?: unknown })?.cause ?? err).includes("UNIQUE constraint failed")) {
        throw conflict("This username is taken", "username_taken");
      }
      throw err;
    }
    if (!updated) throw unauthorized();
    return c.json({ message: "Account updated", user: accountResource(updated) }, 200);
  },
);
