#!/usr/bin/env node
// Extracts nsfwjs's bundled MobileNetV2 model (node_modules/nsfwjs/dist/models/mobilenet_v2, shipped as UMD
// scripts holding JSON and base64) into the two files the worker imports:
//   nsfw-mobilenet-v2.json  model topology + weight manifest (a JSON module)
//   nsfw-mobilenet-v2.bin   the weights, binary (a Data module: wrangler's default rule for *.bin)
// Binary weights are 25% smaller than base64 in the bundle, and Data modules stay out of the JS module
// graph (the vitest pool's module cache would otherwise carry 3.5 MB in one WebSocket message).
// Run after upgrading nsfwjs: node src/analysis/model/extract-nsfw-model.mjs
import { createRequire } from "node:module";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const pkg = path.resolve(here, "../../../node_modules/nsfwjs");
const dir = `${pkg}/dist/models/mobilenet_v2`;
const model = require(`${dir}/model.min.js`);
const weights = Buffer.from(require(`${dir}/group1-shard1of1.min.js`), "base64");
const version = JSON.parse(readFileSync(`${pkg}/package.json`, "utf8")).version;
writeFileSync(path.join(here, "nsfw-mobilenet-v2.json"), JSON.stringify({ nsfwjsVersion: version, ...model }));
writeFileSync(path.join(here, "nsfw-mobilenet-v2.bin"), weights);
console.log(`nsfwjs ${version}: ${weights.length} bytes of weights, ${model.weightsManifest[0].weights.length} tensors`);
