export const usage: string;
export function shardMoveArgs(
  argv: string[],
  env?: Record<string, string | undefined>,
): { help: true } | { userId: string; toShard: number; base: string; token: string };
