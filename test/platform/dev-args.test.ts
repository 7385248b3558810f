// `npm run dev -- --port N` / `PORT=N npm run dev`: the port and the four addresses that follow it.
import { describe, expect, it } from "vitest";
import { devArgs } from "../../scripts/dev-args.mjs";

describe("devArgs", () => {
  it("defaults to 8787 with the wrangler.toml addresses, in development mode", () => {
    expect(devArgs([], {})).toEqual({
      port: 8787,
      rest: [],
      vars: { ENVIRONMENT: "development", BASE_URL: "http://localhost:8787/api/v1", IMAGE_URL: "http://localhost:8787/i", CDN_URL: "http://localhost:8787/cdn", SITE_URL: "http://localhost:8787" },
    });
  });

  it("takes --port N, --port=N or PORT, and passes everything else on", () => {
    expect(devArgs(["--port", "9001", "--log-level", "debug"], {})).toMatchObject({ port: 9001, rest: ["--log-level", "debug"] });
    expect(devArgs(["--port=9002"], { PORT: "1234" }).vars.SITE_URL).toBe("http://localhost:9002");
    expect(devArgs([], { PORT: "9003" }).vars.BASE_URL).toBe("http://localhost:9003/api/v1");
  });

  it("refuses a port that is not one", () => {
    for (const bad of ["0", "70000", "abc", "80.5"]) expect(() => devArgs(["--port", bad], {})).toThrow(/invalid port/);
  });
});
