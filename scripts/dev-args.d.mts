export function devArgs(argv: string[], env?: Record<string, string | undefined>): { port: number; rest: string[]; vars: Record<"BASE_URL" | "IMAGE_URL" | "CDN_URL" | "SITE_URL", string> };
