// The OpenAPI document as generators and linters read it: every operation named (a stable operationId) and with
// its security stated, and the committed copy (docs/openapi.json, which Redocly lints in CI and the client's types
// are generated from) equal to what the worker serves. After changing a route: `npm run openapi:update`.
import { describe, expect, it } from "vitest";
import { call } from "../support/api";

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

async function operations() {
  const doc = (await call("/openapi.json")).body;
  const ops: { key: string; op: Record<string, any> }[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries(item)) if (METHODS.includes(method)) ops.push({ key: `${method.toUpperCase()} ${path}`, op });
  }
  return { doc, ops };
}

describe("the OpenAPI document", () => {
  it("names every operation once, with a dotted operationId", async () => {
    const { ops } = await operations();
    const missing = ops.filter(({ op }) => typeof op.operationId !== "string").map(({ key }) => key);
    expect(missing).toEqual([]);
    const ids = ops.map(({ op }) => op.operationId as string);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z]*(\.[a-z][A-Za-z]*)+$/);
  });

  it("states the security of every operation; public ones say none", async () => {
    const { ops } = await operations();
    expect(ops.filter(({ op }) => !Array.isArray(op.security)).map(({ key }) => key)).toEqual([]);
    const publicOps = ops.filter(({ op }) => op.security.length === 0).map(({ op }) => op.operationId);
    expect(publicOps).toEqual(expect.arrayContaining(["auth.signup", "auth.login", "auth.refresh", "billing.webhook"]));
  });

  it("has a license and this deployment's server", async () => {
    const { doc } = await operations();
    expect(doc.info.license).toMatchObject({ name: "MIT" });
    expect(doc.servers).toEqual([expect.objectContaining({ url: "http://localhost:8787/api/v1" })]);
  });

  it("is the committed docs/openapi.json", async () => {
    const { doc } = await operations();
    await expect(`${JSON.stringify(doc, null, 2)}\n`).toMatchFileSnapshot("../../docs/openapi.json");
  });
});
