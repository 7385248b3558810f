// The browser and Workers path has no Node-only import (issue 28): the package, resolved through its `exports` as a
// bundler for each platform resolves it, bundles with nothing from Node in it, while Node gets the entry that reads
// file paths.
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

async function bundle(options) {
  const result = await build({ stdin: { contents: `export * from "@imghost/client";`, resolveDir: import.meta.dirname }, bundle: true, write: false, format: "esm", metafile: true, logLevel: "silent", ...options });
  return { code: result.outputFiles[0].text, inputs: Object.keys(result.metafile.inputs) };
}

describe("the package's entries", () => {
  it.each([
    ["a browser", { platform: "browser" }],
    ["Workers (wrangler's conditions)", { platform: "neutral", conditions: ["workerd", "worker", "browser"], mainFields: ["module", "main"] }],
  ])("%s gets dist/index.js, with no Node import in the bundle", async (_, options) => {
    const { code, inputs } = await bundle(options);
    expect(inputs.some((p) => p.endsWith("packages/client/dist/index.js"))).toBe(true);
    expect(inputs.some((p) => p.endsWith("packages/client/dist/node.js"))).toBe(false);
    expect(code).not.toMatch(/\bfrom\s*["'](node:)?(fs|path|fs\/promises|stream|crypto|buffer)["']/);
    expect(code).not.toMatch(/require\(|node:/);
    expect(code).toContain("createClient");
  });

  it("Node gets dist/node.js (file paths)", async () => {
    const { inputs, code } = await bundle({ platform: "node" });
    expect(inputs.some((p) => p.endsWith("packages/client/dist/node.js"))).toBe(true);
    expect(code).toMatch(/node:fs\/promises/);
  });
});
