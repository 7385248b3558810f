// NSFW score with nsfwjs's bundled MobileNetV2 weights (no network) on tfjs's WASM backend (tfjs-wasm.ts), or on the
// CPU backend when WASM cannot start or lacks a kernel (docs/analysis.md). Everything is imported dynamically and the
// model loaded once per isolate on the first job, so the API's fetch path never pays for tfjs or the 2.6 MB of
// weights (model/nsfw-mobilenet-v2.{json,bin}, extracted from nsfwjs by model/extract-nsfw-model.mjs).
import { ANALYSIS } from "../config";
import { foldBatchNorms, type KerasTopology } from "./fold-batch-norm";
import { config } from "../config/env";

/** nsfwjs class probabilities (Drawing, Hentai, Neutral, Porn, Sexy), each 0..1, summing to 1. */
export type NsfwPrediction = Record<"Drawing" | "Hentai" | "Neutral" | "Porn" | "Sexy", number>;

/** One run of the network: the class probabilities and the image's features for near-duplicate matching. */
export type NsfwInference = {
  prediction: NsfwPrediction;
  /** See featuresOf: 384 values describing what the image looks like, independent of the NSFW question. */
  features: Float32Array;
};

export type NsfwBackend = "wasm" | "cpu";

type Model = {
  /** The backend the model runs on. */
  backend: NsfwBackend;
  /** Why the WASM backend is not used (null when it is). */
  wasmError: string | null;
  /** `on`: another backend for this one call (tests and the bench compare WASM with CPU). */
  classify: (pixels: Uint8Array, size: number, on?: NsfwBackend) => Promise<NsfwPrediction>;
  /** classify, plus the near-duplicate features of the same run. */
  infer: (pixels: Uint8Array, size: number, on?: NsfwBackend) => Promise<NsfwInference>;
  /** The features' expected value (the batch norm's beta, learnt in training): embedding.ts centres them with it. */
  featureCenter: Float32Array;
  /** Frees the weights (a model of a test's own; the isolate's model lives as long as the isolate). */
  dispose: () => void;
};

export type NsfwModelOptions = {
  /** "cpu": skip the WASM backend (the bench's baseline). */
  only?: "cpu";
  /** Starts the WASM backend (default tfjs-wasm.ts's useWasmBackend); a test's failing one shows the fallback. */
  startWasm?: () => Promise<void>;
};

let model: Promise<Model> | undefined;

/** nsfwjs's class order (nsfw_classes.js): the model's five outputs. */
const CLASSES = ["Drawing", "Hentai", "Neutral", "Porn", "Sexy"] as const;

/**
 * Near-duplicate features: block 10's expansion (14x14x384 for a 224 input, batch norm folded in, before its ReLU6)
 * averaged over the inner 12x12 cells. Why this layer and not the pooled 1280 values, and why the inner cells:
 * docs/analysis.md § Near duplicates that survive a crop or a small rotation (bench/near-duplicates.bench.mjs).
 */
const FEATURE_LAYER = "block_10_expand";

function featuresOf(tf: typeof import("@tensorflow/tfjs-core"), map: import("@tensorflow/tfjs-core").Tensor4D) {
  const [, h, w, c] = map.shape;
  const border = Math.max(1, Math.round(h / 14));
  return tf.mean(tf.slice(map, [0, border, border, 0], [1, h - 2 * border, w - 2 * border, c]), [1, 2]);
}

const reason = (err: unknown) => (err instanceof Error ? err.message || err.name : String(err)).slice(0, 300);

/**
 * nsfwjs's own inference (infer + getTopKClasses) on tfjs-core and tfjs-layers, without nsfwjs's wrapper: it pulls in
 * the whole @tensorflow/tfjs umbrella (WebGL, data, converter), nothing a worker can use. Jobs use loadNsfwModel (one
 * per isolate); tfjs's current backend is global, so creating a model switches it too.
 */
export async function createNsfwModel({ only, startWasm }: NsfwModelOptions = {}): Promise<Model> {
  const tf = await import("@tensorflow/tfjs-core");
  await import("@tensorflow/tfjs-backend-cpu");
  const layers = await import("@tensorflow/tfjs-layers");
  let backend: NsfwBackend = "wasm";
  let wasmError: string | null = null;
  const fallBack = async (err: unknown) => {
    backend = "cpu";
    wasmError = reason(err);
    if (!(await tf.setBackend("cpu"))) throw new Error(`tfjs: no backend (wasm: ${wasmError})`);
  };
  if (only === "cpu") {
    backend = "cpu";
    await tf.setBackend("cpu");
  } else {
    try {
      await (startWasm ?? (await import("./tfjs-wasm")).useWasmBackend)();
    } catch (err) {
      await fallBack(err);
    }
  }
  const [{ default: model }, { default: weights }] = await Promise.all([import("./model/nsfw-mobilenet-v2.json"), import("./model/nsfw-mobilenet-v2.bin")]);
  // The same model with its batch norms folded into the convolutions (fold-batch-norm.ts: ~40% less CPU on WASM).
  const decoded = tf.io.decodeWeights(weights, model.weightsManifest.flatMap((group) => group.weights) as never);
  // Read before folding disposes the batch norms' weights.
  const featureCenter = Float32Array.from(decoded[`${FEATURE_LAYER}_BN/beta`].dataSync());
  const folded = foldBatchNorms(tf, model.modelTopology as unknown as KerasTopology, decoded);
  const net = await layers.models.modelFromJSON({ modelTopology: folded.topology } as never);
  net.loadWeights(folded.weights);
  tf.dispose(Object.values(folded.weights));
  // The same layers (and weights) with a second output, the feature map near-duplicates are matched by: one
  // forward pass gives both.
  const both = layers.model({ inputs: net.inputs, outputs: [net.outputs[0], net.getLayer(FEATURE_LAYER).output as import("@tensorflow/tfjs-layers").SymbolicTensor] });
  const predict = async (rgb: Float32Array, size: number) => {
    const [probabilities, features] = tf.tidy(() => {
      const [p, map] = both.predict(tf.tensor4d(rgb, [1, size, size, 3])) as import("@tensorflow/tfjs-core").Tensor4D[];
      return [p, featuresOf(tf, map)];
    });
    try {
      const [p, f] = await Promise.all([probabilities.data<"float32">(), features.data<"float32">()]);
      return { prediction: toPrediction(p), features: f };
    } finally {
      tf.dispose([probabilities, features]);
    }
  };
  const warmUp = ANALYSIS.nsfwInputSize;
  // One prediction now: a kernel the WASM backend lacks fails here rather than in a job, and XNNPACK sets up
  // its operators on the first run.
  if (backend === "wasm") await predict(new Float32Array(warmUp * warmUp * 3), warmUp).catch(fallBack);
  const infer = async (pixels: Uint8Array, size: number, on: NsfwBackend = backend): Promise<NsfwInference> => {
    // RGBA -> RGB floats in 0..1, as nsfwjs normalises (it divides by 255).
    const rgb = new Float32Array(size * size * 3);
    for (let i = 0, j = 0; j < rgb.length; i += 4, j += 3) {
      rgb[j] = pixels[i] / 255;
      rgb[j + 1] = pixels[i + 1] / 255;
      rgb[j + 2] = pixels[i + 2] / 255;
    }
    if (on === backend) return predict(rgb, size);
    // tfjs moves the weights to the other backend on use, and back on the next call on this one. A job
    // classifying meanwhile may run on either backend: same result, other cost (only tests and the bench do this).
    await tf.setBackend(on);
    try {
      return await predict(rgb, size);
    } finally {
      await tf.setBackend(backend);
    }
  };
  return {
    backend,
    wasmError,
    infer,
    featureCenter,
    classify: async (pixels, size, on) => (await infer(pixels, size, on)).prediction,
    // `both` holds every layer of `net` (its first output is net's), so disposing it frees all the weights.
    dispose: () => void both.dispose(),
  };
}

function toPrediction(probabilities: ArrayLike<number>): NsfwPrediction {
  const out = {} as NsfwPrediction;
  CLASSES.forEach((name, i) => (out[name] = probabilities[i]));
  return out;
}

/**
 * The isolate's model, loaded on first use; a failed load is forgotten so the next job tries again. Only the
 * first call in an isolate passes its options on.
 */
export function loadNsfwModel(options: NsfwModelOptions = {}): Promise<Model> {
  if (!model) {
    model = createNsfwModel(options);
    model.catch(() => {
      model = undefined;
    });
  }
  return model;
}

/**
 * "Not safe for work" as P(porn) + P(hentai) + P(sexy): nsfwjs's classes are exclusive, so this is P(not Neutral or
 * Drawing). "Sexy" (suggestive, not explicit) counts because age restriction covers suggestive content too; with
 * NSFW_THRESHOLD at 0.8 a merely suggestive image still needs a confident classification to be restricted.
 */
export function nsfwScoreOf(p: NsfwPrediction): number {
  return Math.min(1, Math.max(0, p.Porn + p.Hentai + p.Sexy));
}

export type NsfwResult = NsfwInference & { score: number; featureCenter: Float32Array; backend: NsfwBackend; wasmError: string | null };

/** Scores RGBA pixels of ANALYSIS.nsfwInputSize squared, on the model's backend or on `on`; with the near-duplicate features. */
export async function classifyNsfw(pixels: Uint8Array, size = ANALYSIS.nsfwInputSize, on?: NsfwBackend): Promise<NsfwResult> {
  const net = await loadNsfwModel();
  const { prediction, features } = await net.infer(pixels, size, on);
  return { score: nsfwScoreOf(prediction), prediction, features, featureCenter: net.featureCenter, backend: on ?? net.backend, wasmError: net.wasmError };
}

/** NSFW_THRESHOLD, default 0.8. */
export const nsfwThreshold = (env: Env): number => config(env).nsfwThreshold;

/** The stored score: the server's, never below the client's hint (decisions.md § Uploads). */
export function combinedScore(server: number | null, client: number | null): number | null {
  if (server === null) return client;
  return Math.max(server, client ?? 0);
}

/** A moderator's override wins either way; otherwise the score against the threshold. */
export function isAgeRestricted(score: number | null, threshold: number, override: boolean | null): boolean {
  if (override !== null) return override;
  return score !== null && score >= threshold;
}
