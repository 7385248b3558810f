import { z } from "@hono/zod-openapi";
import { PLANS, ROLES, type Plan, type Role } from "../config";
import { PageQuery, Pagination } from "../platform/http/pagination";
import { PlanChangeSchema } from "../billing/schemas";

export const RoleId = z.enum(ROLES as [Role, ...Role[]]);
export const PlanId = z.enum(PLANS as [Plan, ...Plan[]]);
const BoolParam = z.enum(["true", "false"]).transform((v) => v === "true");

export const AdminUser = z
  .object({
    id: z.string(),
    email: z.string(),
    username: z.string(),
    role: RoleId,
    plan: PlanId,
    emailVerified: z.boolean(),
    banned: z.boolean(),
    bannedAt: z.string().openapi({ format: "date-time" }).nullable(),
    storageUsed: z.number().int(),
    storageReserved: z.number().int(),
    createdAt: z.string().openapi({ format: "date-time" }),
    updatedAt: z.string().openapi({ format: "date-time" }),
  })
  .openapi("AdminUser");

export const UserListQuery = PageQuery.extend({
  search: z.string().trim().min(1).max(254).optional().openapi({ description: "Part of the e-mail address (case-insensitive)" }),
  role: RoleId.optional(),
  plan: PlanId.optional(),
  banned: BoolParam.optional().openapi({ type: "boolean" }),
});

export const UserList = z.object({ users: z.array(AdminUser), pagination: Pagination }).openapi("AdminUserList");

export const UserPatchBody = z
  .object({ role: RoleId.optional(), plan: PlanId.optional(), banned: z.boolean().optional() })
  .strict()
  .refine((v) => v.role !== undefined || v.plan !== undefined || v.banned !== undefined, { message: "Give at least one of role, plan, banned" })
  .openapi("AdminUserPatch");

export const UserIdParam = z.object({ id: z.string().max(100).openapi({ param: { name: "id", in: "path" }, example: "usr_V1StGXR8_Z5jdHi6B-myT" }) });

export const PlanChangeListQuery = PageQuery.extend({
  status: z.enum(["pending", "applied", "rejected", "cancelled"]).optional(),
});

export const PlanChangeList = z.object({ planChanges: z.array(PlanChangeSchema), pagination: Pagination }).openapi("PlanChangeList");

export const DecisionBody = z.object({ note: z.string().max(1000).optional() }).strict().openapi("PlanChangeDecision");

export const ShardMoveBody = z
  .object({
    userId: z.string().min(1).max(100),
    toShard: z.number().int().min(0).max(63).openapi({ description: "The shard to move the owner to (0: database DB)" }),
  })
  .strict()
  .openapi("ShardMoveRequest");

export const ShardMoveProgress = z
  .object({
    userId: z.string(),
    fromShard: z.number().int(),
    toShard: z.number().int(),
    step: z.enum(["fence", "copy", "verify", "switch", "delete", "done"]).openapi({ description: "The step the move is at: call again until done" }),
    waitingFor: z.string().optional().openapi({ description: "Why it cannot go on yet (the owner's uploads in flight): call again later" }),
  })
  .openapi("ShardMoveProgress");
