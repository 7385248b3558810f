// NSFW score with nsfwjs's MobileNetV2 model (the weights the package bundles: no network) on the tfjs CPU backend.
// Everything is imported dynamically and the model is loaded once per isolate, on the first analysis job,
// so the API's fetch path never pays for tfjs or the 2.6 MB of weights. The weights come from
// model/nsfw-mobilenet-v2.{json,bin}, extracted from nsfwjs by model/extract-nsfw-model.mjs.
import { ANALYSIS } from "../config";

/** nsfwjs class probabilities (Drawing, Hentai, Neutral, Porn, Sexy), each 0..1, summing to 1. */
export type NsfwPrediction = Record<"Drawing" | "Hentai" | "Neutral" | "Porn" | "Sexy", number>;

type Model = { classify: (pixels: Uint8Array, size: number) => Promise<NsfwPrediction> };

let model: Promise<Model> | undefined;

/** nsfwjs's class order (nsfw_classes.js): the model's five outputs. */
const CLASSES = ["Drawing", "Hentai", "Neutral", "Porn", "Sexy"] as const;

/**
 * nsfwjs's own inference (NSFWJS.infer + getTopKClasses) on tfjs-core, tfjs-layers and the CPU backend:
 * pixels / 255, predict on a [1, 224, 224, 3] batch, probabilities in class order. nsfwjs's JS wrapper is
 * not imported: it pulls in the whole @tensorflow/tfjs umbrella (WebGL backend, data, converter), which
 * would multiply the bundle and the test module graph for nothing a worker can use.
 */
async function createModel(): Promise<Model> {
  const tf = await import("@tensorflow/tfjs-core");
  await import("@tensorflow/tfjs-backend-cpu");
  const layers = await import("@tensorflow/tfjs-layers");
  await tf.setBackend("cpu");
  await tf.ready();
  const [{ default: model }, { default: weights }] = await Promise.all([import("./model/nsfw-mobilenet-v2.json"), import("./model/nsfw-mobilenet-v2.bin")]);
  const net = await layers.loadLayersModel(
    tf.io.fromMemory({
      modelTopology: model.modelTopology,
      weightSpecs: model.weightsManifest.flatMap((group) => group.weights) as never,
      weightData: weights,
    }),
  );
  return {
    async classify(pixels, size) {
      // RGBA -> RGB floats in 0..1, as nsfwjs normalises (it divides by 255).
      const rgb = new Float32Array(size * size * 3);
      for (let i = 0, j = 0; j < rgb.length; i += 4, j += 3) {
        rgb[j] = pixels[i] / 255;
        rgb[j + 1] = pixels[i + 1] / 255;
        rgb[j + 2] = pixels[i + 2] / 255;
      }
      const output = tf.tidy(() => net.predict(tf.tensor4d(rgb, [1, size, size, 3])) as import("@tensorflow/tfjs-core").Tensor);
      try {
        const probabilities = await output.data();
        const out = {} as NsfwPrediction;
        CLASSES.forEach((name, i) => (out[name] = probabilities[i]));
        return out;
      } finally {
        output.dispose();
      }
    },
  };
}

/** The model, loaded on first use; a failed load is forgotten so the next job tries again. */
export function loadNsfwModel(): Promise<Model> {
  if (!model) {
    model = createModel();
    model.catch(() => {
      model = undefined;
    });
  }
  return model;
}

/**
 * One number for "not safe for work": P(porn) + P(hentai) + P(sexy). nsfwjs's classes are exclusive and sum
 * to 1, so this is the probability of not being Neutral or Drawing. "Sexy" (suggestive, not explicit) is
 * included because age restriction is about suggestive content too; with NSFW_THRESHOLD at 0.8 a
 * merely suggestive image still needs a confident classification to be restricted.
 */
export function nsfwScoreOf(p: NsfwPrediction): number {
  return Math.min(1, Math.max(0, p.Porn + p.Hentai + p.Sexy));
}

/** Scores RGBA pixels of ANALYSIS.nsfwInputSize squared. */
export async function classifyNsfw(pixels: Uint8Array, size = ANALYSIS.nsfwInputSize): Promise<{ score: number; prediction: NsfwPrediction }> {
  const net = await loadNsfwModel();
  const prediction = await net.classify(pixels, size);
  return { score: nsfwScoreOf(prediction), prediction };
}

/** NSFW_THRESHOLD, default 0.8. */
export function nsfwThreshold(env: Pick<Env, "NSFW_THRESHOLD">): number {
  const n = Number.parseFloat(env.NSFW_THRESHOLD ?? "");
  return Number.isFinite(n) ? n : ANALYSIS.defaultNsfwThreshold;
}

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
