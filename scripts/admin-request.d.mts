export const ROLES: string[];
export const PLANS: string[];
export function adminRequest(change: { email: string; role?: string; plan?: string; port?: number }): {
  url: string;
  init: { method: string; headers: Record<string, string>; body: string };
};
