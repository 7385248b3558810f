// `npm run shard:move -- … --local` finds the worker's port the way `npm run dev` does (--port, then PORT, then
// 8787), so the admin token never goes to whatever else answers on 8787.
import { describe, expect, it } from "vitest";
import { shardMoveArgs } from "../../scripts/shard-move-args.mjs";
import { devArgs } from "../../scripts/dev-args.mjs";

const base = (argv: string[], env: Record<string, string> = {}) => {
  const parsed = shardMoveArgs(["usr_1", "1", "--token", "t", ...argv], env);
  return "base" in parsed ? parsed.base : undefined;
};

describe("shard:move arguments", () => {
  it("--local follows --port, then PORT, then 8787, with npm run dev's precedence", () => {
    expect(base(["--local"])).toBe("http://localhost:8787");
    expect(base(["--local"], { PORT: "9100" })).toBe("http://localhost:9100");
    expect(base(["--local", "--port", "9200"], { PORT: "9100" })).toBe("http://localhost:9200");
    expect(base(["--local", "--port=9300"])).toBe("http://localhost:9300");
    expect(base(["--local", "-p", "9400"])).toBe("http://localhost:9400");
    // The same answer as npm run dev's, whatever is given.
    for (const [argv, env] of [[["--port", "9500"], { PORT: "1" }], [[], { PORT: "9600" }], [[], {}]] as const) {
      expect(base(["--local", ...argv], env)).toBe(devArgs([...argv], env).vars.SITE_URL);
    }
  });

  it("--url is taken as given; the token comes from --token or SHARD_MOVE_TOKEN", () => {
    expect(base(["--url", "https://img.example/"])).toBe("https://img.example");
    expect(shardMoveArgs(["usr_1", "2", "--local"], { SHARD_MOVE_TOKEN: "env-token" })).toMatchObject({ userId: "usr_1", toShard: 2, token: "env-token" });
  });

  it("refuses what it cannot act on, saying why", () => {
    expect(() => shardMoveArgs(["usr_1", "1", "--token", "t"], {})).toThrow(/--local .* or --url/);
    expect(() => shardMoveArgs(["usr_1", "1", "--local", "--url", "https://x", "--token", "t"], {})).toThrow(/not both/);
    expect(() => shardMoveArgs(["usr_1", "1", "--url", "https://x", "--port", "9000", "--token", "t"], {})).toThrow(/--port goes with --local/);
    expect(() => shardMoveArgs(["usr_1", "1", "--local", "--port", "70000", "--token", "t"], {})).toThrow(/invalid port/);
    expect(() => shardMoveArgs(["usr_1", "1", "--local"], {})).toThrow(/access token/);
    expect(() => shardMoveArgs(["usr_1", "x", "--local", "--token", "t"], {})).toThrow(/shard number/);
    expect(() => shardMoveArgs(["usr_1", "1", "--bogus"], {})).toThrow(/unknown option/);
    expect(shardMoveArgs(["--help"], {})).toEqual({ help: true });
  });
});
