// Folds MobileNetV2's inference-time BatchNormalization layers into the convolutions before them, at load, because
// tfjs-wasm's FusedBatchNorm is a plain loop, not XNNPACK: its 52 layers cost as much as the 35 convolutions (~48 of
// ~120 ms per image, tf.profile). Frozen statistics make it exact: kernel * s, bias beta - s * mean, s = gamma /
// sqrt(var + eps) (the convolutions have no bias); only float rounding differs (~1e-6). Done on the Keras topology
// JSON and weights before tfjs-layers builds the model: a folded layer is dropped, references point at its conv.
import type { NamedTensorMap, Tensor } from "@tensorflow/tfjs-core";

type Tf = typeof import("@tensorflow/tfjs-core");
type Inbound = [string, number, number, Record<string, unknown>?];
type KerasLayer = { class_name: string; name: string; config: Record<string, unknown>; inbound_nodes: Inbound[][] };
export type KerasTopology = { model_config: { config: { layers: KerasLayer[]; output_layers: Inbound[] } } };

const KERNEL: Record<string, string> = { Conv2D: "kernel", DepthwiseConv2D: "depthwise_kernel" };

/**
 * Returns a new topology and weight map with every foldable BatchNormalization folded, and how many were.
 * Foldable: its only input is a Conv2D / DepthwiseConv2D (channels last, no bias) used by nothing else, it
 * normalises the last axis, with both scale and center. The weights given are disposed when replaced.
 */
export function foldBatchNorms(tf: Tf, topology: KerasTopology, weights: NamedTensorMap): { topology: KerasTopology; weights: NamedTensorMap; folded: number } {
  const out = structuredClone(topology);
  const config = out.model_config.config;
  const byName = new Map(config.layers.map((layer) => [layer.name, layer]));
  const uses = new Map<string, number>();
  for (const ref of [...config.layers.flatMap((l) => l.inbound_nodes.flat()), ...config.output_layers]) uses.set(ref[0], (uses.get(ref[0]) ?? 0) + 1);
  const map: NamedTensorMap = { ...weights };
  const renamed = new Map<string, string>();

  for (const bn of config.layers) {
    if (bn.class_name !== "BatchNormalization") continue;
    const inputs = bn.inbound_nodes.flat();
    const conv = inputs.length === 1 && bn.inbound_nodes.length === 1 ? byName.get(inputs[0][0]) : undefined;
    const c = bn.config;
    if (!conv || !KERNEL[conv.class_name] || conv.config.use_bias !== false || uses.get(conv.name) !== 1) continue;
    if (conv.config.data_format !== "channels_last" || ![-1, 3].includes(c.axis as number) || c.scale !== true || c.center !== true) continue;
    const kernelName = `${conv.name}/${KERNEL[conv.class_name]}`;
    const [gamma, beta, mean, variance, kernel] = [`${bn.name}/gamma`, `${bn.name}/beta`, `${bn.name}/moving_mean`, `${bn.name}/moving_variance`, kernelName].map((n) => map[n]);
    if (!gamma || !beta || !mean || !variance || !kernel) continue;

    const [scaled, bias] = tf.tidy(() => {
      const s = tf.div(gamma, tf.sqrt(tf.add(variance, c.epsilon as number)));
      // Output channel o of a depthwise kernel [h, w, in, multiplier] is (in, multiplier) in row-major order.
      const perOutput = conv.class_name === "DepthwiseConv2D" ? tf.reshape(s, kernel.shape.slice(2)) : s;
      return [tf.mul(kernel, perOutput), tf.sub(beta, tf.mul(s, mean))] as Tensor[];
    });
    tf.dispose([gamma, beta, mean, variance, kernel]);
    for (const n of ["gamma", "beta", "moving_mean", "moving_variance"]) delete map[`${bn.name}/${n}`];
    map[kernelName] = scaled;
    map[`${conv.name}/bias`] = bias;
    conv.config.use_bias = true;
    renamed.set(bn.name, conv.name);
  }

  config.layers = config.layers.filter((layer) => !renamed.has(layer.name));
  for (const ref of [...config.layers.flatMap((l) => l.inbound_nodes.flat()), ...config.output_layers]) ref[0] = renamed.get(ref[0]) ?? ref[0];
  return { topology: out, weights: map, folded: renamed.size };
}
