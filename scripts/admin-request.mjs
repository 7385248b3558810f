// The request `npm run admin` sends to the local worker (`npm run dev`): PATCH /api/v1/dev/users, which changes the
// account through the same code as PATCH /admin/users/:id (src/dev/routes.ts), so the account's edge-cached record
// is forgotten too. Kept apart from the script so the tests send exactly this request to the worker.

export const ROLES = ["user", "moderator", "admin"];
export const PLANS = ["free", "pro", "enterprise"];

/**
 * @param {{ email: string, role?: string, plan?: string, port?: number }} change
 * @returns {{ url: string, init: { method: string, headers: Record<string, string>, body: string } }}
 */
export function adminRequest({ email, role, plan, port = 8787 }) {
  const body = { email, ...(role !== undefined && { role }), ...(plan !== undefined && { plan }) };
  return {
    url: `http://localhost:${port}/api/v1/dev/users`,
    init: { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify(body) },
  };
}
