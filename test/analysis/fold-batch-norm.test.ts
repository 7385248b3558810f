// foldBatchNorms (src/analysis/fold-batch-norm.ts) on the real MobileNetV2 topology and weights: what it
// folds, what it must leave alone, and that a folded layer computes what conv + batch norm did.
import * as tf from "@tensorflow/tfjs-core";
import "@tensorflow/tfjs-backend-cpu";
import { describe, expect, it } from "vitest";
import { foldBatchNorms, type KerasTopology } from "../../src/analysis/fold-batch-norm";
import model from "../../src/analysis/model/nsfw-mobilenet-v2.json";
import weightData from "../../src/analysis/model/nsfw-mobilenet-v2.bin";

const topology = model.modelTopology as unknown as KerasTopology;
const decode = () => tf.io.decodeWeights(weightData, model.weightsManifest.flatMap((g) => g.weights) as never);
const layersOf = (t: KerasTopology) => t.model_config.config.layers;
const count = (t: KerasTopology, cls: string) => layersOf(t).filter((l) => l.class_name === cls).length;

describe("foldBatchNorms", () => {
  it("folds all 52 batch norms of MobileNetV2 and rewires their consumers", () => {
    const weights = decode();
    const out = foldBatchNorms(tf, topology, weights);
    expect(out.folded).toBe(52);
    expect(count(out.topology, "BatchNormalization")).toBe(0);
    expect(count(out.topology, "Conv2D") + count(out.topology, "DepthwiseConv2D")).toBe(52);
    const names = new Set(layersOf(out.topology).map((l) => l.name));
    for (const ref of layersOf(out.topology).flatMap((l) => l.inbound_nodes.flat())) expect(names.has(ref[0])).toBe(true);
    expect(out.weights["Conv1/bias"].shape).toEqual([32]);
    expect(Object.keys(out.weights).some((n) => n.includes("moving_mean"))).toBe(false);
    expect(count(topology, "BatchNormalization")).toBe(52); // the input topology is not modified
    tf.dispose(Object.values(out.weights));
  });

  it("leaves a batch norm whose convolution has a bias or another consumer", () => {
    const changed = structuredClone(topology);
    const conv = layersOf(changed).find((l) => l.name === "Conv1")!;
    conv.config.use_bias = true;
    const project = layersOf(changed).find((l) => l.name === "expanded_conv_project_BN")!;
    const consumer = layersOf(changed).find((l) => l.name === "block_1_expand")!;
    consumer.inbound_nodes = [[["expanded_conv_project", 0, 0, {}]]]; // a second consumer of the conv
    const out = foldBatchNorms(tf, changed, decode());
    expect(out.folded).toBe(50);
    expect(layersOf(out.topology).map((l) => l.name)).toEqual(expect.arrayContaining(["bn_Conv1", project.name]));
    tf.dispose(Object.values(out.weights));
  });

  it("computes what the convolution followed by the batch norm did", () => {
    const weights = decode();
    const ref = tf.tidy(() => {
      const x = tf.randomUniform([1, 8, 8, 32], 0, 1, "float32", 7) as tf.Tensor4D;
      const conv = tf.depthwiseConv2d(x, weights["expanded_conv_depthwise/depthwise_kernel"] as tf.Tensor4D, 1, "same");
      const bn = "expanded_conv_depthwise_BN";
      const expected = tf.batchNorm(conv, weights[`${bn}/moving_mean`], weights[`${bn}/moving_variance`], weights[`${bn}/beta`], weights[`${bn}/gamma`], 0.001);
      return { x: tf.keep(x), expected: tf.keep(expected) };
    });
    const out = foldBatchNorms(tf, topology, weights);
    const folded = tf.tidy(() => tf.add(tf.depthwiseConv2d(ref.x, out.weights["expanded_conv_depthwise/depthwise_kernel"] as tf.Tensor4D, 1, "same"), out.weights["expanded_conv_depthwise/bias"]));
    const diff = tf.tidy(() => tf.max(tf.abs(tf.sub(folded, ref.expected))).dataSync()[0]);
    expect(diff).toBeLessThan(1e-4);
    tf.dispose([ref.x, ref.expected, folded, ...Object.values(out.weights)]);
  });
});
