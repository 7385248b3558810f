// The NSFW model on tfjs's WASM backend (src/analysis/tfjs-wasm.ts) inside workerd: it must be the backend in
// use, and score like the CPU backend did (test/fixtures/images/expected-nsfw.json, computed by the CPU
// backend before the switch) within 0.01 on every fixture; a few fixtures are also scored on the CPU
// backend in this isolate (~2 s each, so not all of them) to check the references still hold.
import * as tf from "@tensorflow/tfjs-core";
import { beforeAll, describe, expect, it } from "vitest";
import { decodeImage } from "../../src/analysis/imaging";
import { classifyNsfw, createNsfwModel, loadNsfwModel, type NsfwPrediction } from "../../src/analysis/nsfw";
import expected from "../fixtures/images/expected-nsfw.json";
import { FIXTURE_NAMES, fixture } from "./fixtures";

const REFERENCE: Record<string, NsfwPrediction & { score: number }> = expected.scores;
const CLASSES = ["Drawing", "Hentai", "Neutral", "Porn", "Sexy"] as const;

async function input(name: string): Promise<Uint8Array> {
  const decoded = await decodeImage(fixture(name), { orientation: null, thumbnailMaxSide: 0, thumbnailJpegQuality: 80, nsfwSize: 224 });
  if (!decoded.nsfwInput) throw new Error(`${name}: no NSFW input (${decoded.stepErrors.join("; ")})`);
  return decoded.nsfwInput;
}

function expectClose(actual: NsfwPrediction & { score: number }, reference: NsfwPrediction & { score: number }) {
  expect(Math.abs(actual.score - reference.score)).toBeLessThanOrEqual(0.01);
  for (const c of CLASSES) expect(Math.abs(actual[c] - reference[c]), c).toBeLessThanOrEqual(0.01);
}

beforeAll(async () => {
  await loadNsfwModel();
}, 180_000);

describe("NSFW model on the WASM backend", () => {
  it("runs on 'wasm' (no fallback) and is tfjs's current backend", async () => {
    const model = await loadNsfwModel();
    expect(model.wasmError).toBeNull();
    expect(model.backend).toBe("wasm");
    expect(tf.getBackend()).toBe("wasm");
  });

  it("runs only kernels the WASM backend has, with the batch norms folded into the convolutions", async () => {
    const pixels = await input("cubes.jpg");
    const { kernels } = await tf.profile(async () => void (await classifyNsfw(pixels)));
    // Profiles also list custom-gradient op scopes (e.g. "fusedConv2d__op"), which are no backend's kernels.
    const cpuKernels = new Set(tf.getKernelsForBackend("cpu").map((k) => k.kernelName));
    const names = [...new Set(kernels.map((k) => k.name))].filter((name) => cpuKernels.has(name));
    expect(names).toContain("FusedConv2D");
    expect(names.filter((name) => !tf.getKernel(name, "wasm"))).toEqual([]);
    expect(names).not.toContain("FusedBatchNorm");
  });

  it("returns the near-duplicate features with the scores and leaves no tensor behind", async () => {
    const pixels = await input("cubes.jpg");
    const model = await loadNsfwModel();
    await model.infer(pixels, 224); // first call may set up kernels
    const before = tf.memory().numTensors;
    const { prediction, features } = await model.infer(pixels, 224);
    expect(tf.memory().numTensors).toBe(before);
    expect(features).toHaveLength(384);
    expect(model.featureCenter).toHaveLength(384);
    expect(features.every(Number.isFinite)).toBe(true);
    expect(prediction).toEqual(await model.classify(pixels, 224));
  });

  it("has a reference for every fixture", () => {
    expect(Object.keys(REFERENCE).sort()).toEqual(FIXTURE_NAMES);
  });

  it.each(FIXTURE_NAMES)("%s: within 0.01 of the CPU backend's reference", async (name) => {
    const result = await classifyNsfw(await input(name));
    expect(result.backend).toBe("wasm");
    expectClose({ score: result.score, ...result.prediction }, REFERENCE[name]);
  });

  // The highest-scoring fixture, a lossless one and a GIF frame.
  it.each(["cubes-resized.jpg", "truchet.png", "licorice.gif"])("%s: WASM and CPU agree within 0.01 in one isolate", async (name) => {
    const pixels = await input(name);
    const cpu = await classifyNsfw(pixels, 224, "cpu");
    const wasm = await classifyNsfw(pixels);
    expect(cpu.backend).toBe("cpu");
    expect(wasm.backend).toBe("wasm");
    expectClose({ score: wasm.score, ...wasm.prediction }, { score: cpu.score, ...cpu.prediction });
    expectClose({ score: cpu.score, ...cpu.prediction }, REFERENCE[name]);
    // The CPU call switches back: jobs keep running on WASM.
    expect(tf.getBackend()).toBe("wasm");
  }, 60_000);
});

describe("NSFW model when the WASM backend cannot start", () => {
  it("runs on the CPU backend, says why, and scores like the reference", async () => {
    const tensorsBefore = tf.memory().numTensors;
    const model = await createNsfwModel({ startWasm: () => Promise.reject(new Error("no wasm in this test")) });
    try {
      expect(model.backend).toBe("cpu");
      expect(model.wasmError).toBe("no wasm in this test");
      expect(tf.getBackend()).toBe("cpu");
      const prediction = await model.classify(await input("cubes-resized.jpg"), 224);
      const score = prediction.Porn + prediction.Hentai + prediction.Sexy;
      expectClose({ score, ...prediction }, REFERENCE["cubes-resized.jpg"]);
    } finally {
      model.dispose();
      // Its weights are gone again (the two-output model shares net's layers; disposing it frees them).
      expect(tf.memory().numTensors).toBe(tensorsBefore);
      // The isolate's model (and the other tests) run on WASM.
      await tf.setBackend("wasm");
    }
  }, 60_000);
});
