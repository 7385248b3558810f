// The base the pages' client and the browser script call the API at (platform/http/api-endpoints.ts) is where the app
// mounts it. The paths under it are typed by @imghost/client from docs/openapi.json (kept fresh by its tests).
import { describe, expect, it } from "vitest";
import { API_BASE } from "../../src/platform/http/api-endpoints";
import { BASE, call } from "../support/api";

describe("the clients' API base", () => {
  it("is where the app serves the API", async () => {
    expect(new URL(BASE).pathname).toBe(API_BASE);
    expect((await call("/openapi.json")).status).toBe(200);
  });
});
