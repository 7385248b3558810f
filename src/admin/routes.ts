// /admin: accounts, plan-change decisions and moving an owner to another shard. Admin role, session only (API keys get the contract's 403).
import { z } from "@hono/zod-openapi";
import { defineRoute } from "../platform/http/route-errors";
import type { AppEnv } from "../platform/http/env";
import { requireRole, sessionPrincipal } from "../middleware/guards";
import { bearer, errors, json } from "../platform/http/openapi";
import { apiRouter } from "../platform/http/router";
import { mountAt } from "../platform/http/mount";
import { decidePlanChange, listPlanChanges, planChangeResource } from "../billing/plan-changes";
import { PlanChangeSchema } from "../billing/schemas";
import { adminUser, listUsers, updateUser } from "./users";
import { moveOwner } from "./shard-move/move";
import {
  AdminUser,
  DecisionBody,
  PlanChangeList,
  PlanChangeListQuery,
  ShardMoveBody,
  ShardMoveProgress,
  UserIdParam,
  UserList,
  UserListQuery,
  UserPatchBody,
} from "./schemas";

export const adminRoutes = apiRouter();
export const adminMount = mountAt("/admin", adminRoutes);
const tags = ["Admin"];

adminRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/users",
    operationId: "admin.listUsers",
    tags,
    summary: "List accounts (newest first), optionally searched by e-mail",
    security: bearer,
    middleware: [requireRole("admin")] as const,
    request: { query: UserListQuery },
    responses: { 200: json(UserList, "Accounts"), ...errors(400, 401, 403, 429) },
  }),
  async (c) => {
    const { limit, offset, ...filter } = c.req.valid("query");
    return c.json(await listUsers(c.get("dbs").directoryAndShards(), filter, limit, offset), 200);
  },
);

adminRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/users/{id}",
    operationId: "admin.getUser",
    tags,
    summary: "One account",
    security: bearer,
    middleware: [requireRole("admin")] as const,
    request: { params: UserIdParam },
    errors: ["user_not_found"],
    responses: { 200: json(z.object({ user: AdminUser }), "The account"), ...errors(401, 403, 404, 429) },
  }),
  async (c) => c.json({ user: await adminUser(c.get("dbs").directoryAndShards(), c.req.valid("param").id) }, 200),
);

adminRoutes.openapi(
  defineRoute({
    method: "patch",
    path: "/users/{id}",
    operationId: "admin.updateUser",
    tags,
    summary: "Change an account's role, plan or ban",
    description:
      "A ban stops the user's sessions and API keys at their next request and makes their files answer 410; lifting it " +
      "restores both. Every change writes an audit record.",
    security: bearer,
    middleware: [requireRole("admin")] as const,
    request: { params: UserIdParam, body: { required: true, content: { "application/json": { schema: UserPatchBody } } } },
    errors: ["cannot_modify_self", "user_not_found"],
    responses: { 200: json(z.object({ message: z.string(), user: AdminUser }), "Updated"), ...errors(400, 401, 403, 404, 429) },
  }),
  async (c) => {
    const admin = sessionPrincipal(c.get("principal")).user;
    const user = await updateUser(c.get("dbs").directoryAndShards(), c.env, { actorId: admin.id, provider: "admin" }, c.req.valid("param").id, c.req.valid("json"));
    return c.json({ message: "User updated", user }, 200);
  },
);

adminRoutes.openapi(
  defineRoute({
    method: "get",
    path: "/plan-changes",
    operationId: "admin.listPlanChanges",
    tags,
    summary: "Plan change requests (newest first); ?status=pending for the ones waiting for a decision",
    security: bearer,
    middleware: [requireRole("admin")] as const,
    request: { query: PlanChangeListQuery },
    responses: { 200: json(PlanChangeList, "Plan changes"), ...errors(400, 401, 403, 429) },
  }),
  async (c) => {
    const { limit, offset, status } = c.req.valid("query");
    return c.json(await listPlanChanges(c.get("dbs").directory(), status, limit, offset), 200);
  },
);

const PlanChangeIdParam = z.object({ id: z.string().max(100).openapi({ param: { name: "id", in: "path" } }) });

for (const decision of ["approve", "reject"] as const) {
  adminRoutes.openapi(
    defineRoute({
      method: "post",
      path: `/plan-changes/{id}/${decision}`,
      operationId: `admin.${decision}PlanChange`,
      tags,
      summary: decision === "approve" ? "Approve a pending plan change (the user's plan changes now)" : "Reject a pending plan change",
      security: bearer,
      middleware: [requireRole("admin")] as const,
      request: { params: PlanChangeIdParam, body: { required: false, content: { "application/json": { schema: DecisionBody } } } },
      errors: ["plan_change_not_found", "plan_change_decided"],
      responses: {
        200: json(z.object({ message: z.string(), planChange: PlanChangeSchema }), "Decided"),
        ...errors(400, 401, 403, 404, 409, 429),
      },
    }),
    async (c) => {
      const admin = sessionPrincipal(c.get("principal")).user;
      const body = c.req.valid("json") as z.infer<typeof DecisionBody> | undefined;
      const row = await decidePlanChange(c.get("dbs").directory(), c.env, c.req.valid("param").id, admin.id, decision, body?.note);
      return c.json({ message: decision === "approve" ? "Plan change applied" : "Plan change rejected", planChange: planChangeResource(row) }, 200);
    },
  );
}

adminRoutes.openapi(
  defineRoute({
    method: "post",
    path: "/shards/move",
    operationId: "admin.moveOwner",
    tags,
    summary: "Move an owner's data to another shard, or go on with the move under way (npm run shard:move)",
    description:
      "Runs the move a bounded number of steps and pages per call and answers where it stands; call again until `step` is done. " +
      "While it runs the owner's changes answer 503 owner_moving; reads go on. docs/sharding.md § Moving an owner.",
    security: bearer,
    middleware: [requireRole("admin")] as const,
    request: { body: { required: true, content: { "application/json": { schema: ShardMoveBody } } } },
    errors: ["invalid_shard", "user_not_found", "owner_move_under_way", "owner_move_unverified"],
    responses: { 200: json(ShardMoveProgress, "Where the move stands"), ...errors(400, 401, 403, 404, 409, 429) },
  }),
  async (c) => {
    const { userId, toShard } = c.req.valid("json");
    return c.json(await moveOwner(c.env, userId, toShard), 200);
  },
);
