// The endpoints the pages and the browser script call (platform/api-endpoints.ts) are the API's own: each is in
// the OpenAPI document the routes generate, with its method, under the base the app mounts the API at.
import { describe, expect, it } from "vitest";
import { API_BASE, ENDPOINTS, endpointPath } from "../../src/platform/api-endpoints";
import { BASE, call } from "../support/api";

describe("the clients' endpoints", () => {
  it("every one is a route of the API, with its method", async () => {
    const res = await call("/openapi.json");
    expect(res.status).toBe(200);
    const paths = (res.body as { paths: Record<string, Record<string, unknown>> }).paths;
    const missing = Object.entries(ENDPOINTS).filter(([, e]) => !paths[e.path]?.[e.method.toLowerCase()]).map(([name, e]) => `${name}: ${e.method} ${e.path}`);
    expect(missing).toEqual([]);
    expect(new URL(BASE).pathname).toBe(API_BASE);
  });

  it("fills in path segments escaped, and appends a query", () => {
    expect(endpointPath(ENDPOINTS.removeFromAlbum, { id: "alb_1", fileId: "a/b" })).toBe("/albums/alb_1/files/a%2Fb");
    expect(endpointPath(ENDPOINTS.listFiles, {}, "?limit=5")).toBe("/files?limit=5");
  });
});
