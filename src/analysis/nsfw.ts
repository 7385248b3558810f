// NSFW score with nsfwjs (MobileNetV2, weights bundled in the package: no network) on the tfjs CPU backend.
// Everything is imported dynamically and the model is loaded once per isolate, on the first analysis job,
// so the API's fetch path never pays for tfjs or the 3.5 MB of weights.
import { ANALYSIS } from "../config";

/** nsfwjs class probabilities (Drawing, Hentai, Neutral, Porn, Sexy), each 0..1, summing to 1. */
export type NsfwPrediction = Record<"Drawing" | "Hentai" | "Neutral" | "Porn" | "Sexy", number>;

type Model = { classify: (pixels: Uint8Array, size: number) => Promise<NsfwPrediction> };

let model: Promise<Model> | undefined;

async function createModel(): Promise<Model> {
  const tf = await import("@tensorflow/tfjs-core");
  // Adds tensor.toFloat() & co., which nsfwjs calls; tfjs-core does not register them by itself.
  await import("@tensorflow/tfjs-core/dist/public/chained_ops/register_all_chained_ops");
  await import("@tensorflow/tfjs-backend-cpu");
  await tf.setBackend("cpu");
  await tf.ready();
  const nsfwjs = await import("nsfwjs/core");
  const { MobileNetV2Model } = await import("nsfwjs/models/mobilenet_v2");
  const net = await nsfwjs.load("MobileNetV2", { modelDefinitions: [MobileNetV2Model] });
  return {
    async classify(pixels, size) {
      // RGBA -> RGB int32 tensor; nsfwjs normalises to 0..1 and would resize if the size differed.
      const rgb = new Int32Array(size * size * 3);
      for (let i = 0, j = 0; j < rgb.length; i += 4, j += 3) {
        rgb[j] = pixels[i];
        rgb[j + 1] = pixels[i + 1];
        rgb[j + 2] = pixels[i + 2];
      }
      const input = tf.tensor3d(rgb, [size, size, 3], "int32");
      try {
        const predictions = await net.classify(input as never, 5);
        const out: NsfwPrediction = { Drawing: 0, Hentai: 0, Neutral: 0, Porn: 0, Sexy: 0 };
        for (const p of predictions) out[p.className] = p.probability;
        return out;
      } finally {
        input.dispose();
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
