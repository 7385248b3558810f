// tfjs's WebAssembly backend for workerd, built from the `.wasm` import (compiled at deploy) through Emscripten's
// `instantiateWasm` hook, because Workers refuse to compile WebAssembly at run time (docs/analysis.md, NSFW).
// Only the SIMD, non-threaded binary: Workers have no threads, and V8 always has SIMD. The package's index is not
// imported (it registers its fetching factory under the same name); backend_wasm.js and register_all_kernels.js are,
// and the glue is our copy (model/tfjs-backend-wasm-glue.js, see extract-tfjs-wasm-glue.mjs).
import * as tf from "@tensorflow/tfjs-core";
import { BackendWasm } from "@tensorflow/tfjs-backend-wasm/dist/backend_wasm.js";
import "@tensorflow/tfjs-backend-wasm/dist/register_all_kernels.js";
import { version as packageVersion } from "@tensorflow/tfjs-backend-wasm/dist/version.js";
import simdModule from "@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm-simd.wasm";
import wasmFactory, { version as glueVersion } from "./model/tfjs-backend-wasm-glue.js";

export const WASM_BACKEND = "wasm";

type Glue = Awaited<ReturnType<typeof wasmFactory>> & {
  cwrap: (name: string, returnType: string | null, argTypes: string[]) => (...args: number[]) => number | void;
};

/** Instantiates the bundled module and wires up what BackendWasm expects (the package's init(), minus fetch). */
async function instantiate(): Promise<BackendWasm> {
  // The glue's import names are minified per build: a glue from another version fails to link, or worse.
  if (glueVersion !== packageVersion) {
    throw new Error(`tfjs wasm glue is from ${glueVersion}, the package is ${packageVersion}: rerun src/analysis/model/extract-tfjs-wasm-glue.mjs`);
  }
  let aborted: string | undefined;
  const glue = (await wasmFactory({
    instantiateWasm(imports: WebAssembly.Imports, receive: (instance: WebAssembly.Instance, module: WebAssembly.Module) => void) {
      const instance = new WebAssembly.Instance(simdModule, imports);
      receive(instance, simdModule);
      return instance.exports;
    },
    onAbort: (msg: string) => {
      aborted = String(msg);
    },
  })) as Glue;
  if (aborted) throw new Error(`tfjs wasm aborted: ${aborted}`);
  glue.tfjs = {
    init: glue.cwrap("init", null, []) as () => void,
    initWithThreadsCount: glue.cwrap("init_with_threads_count", null, ["number"]) as (n: number) => void,
    getThreadsCount: glue.cwrap("get_threads_count", "number", []) as () => number,
    registerTensor: glue.cwrap("register_tensor", null, ["number", "number", "number"]) as (id: number, size: number, offset: number) => void,
    disposeData: glue.cwrap("dispose_data", null, ["number"]) as (id: number) => void,
    dispose: glue.cwrap("dispose", null, []) as () => void,
  };
  return new BackendWasm(glue);
}

/**
 * Creates the backend and makes it tfjs's current one (once per isolate). Created here rather than in a
 * registered factory because tfjs swallows a factory's error (setBackend only answers false), and the
 * analysis records why WASM was not used.
 */
export async function useWasmBackend(): Promise<void> {
  if (!tf.findBackendFactory(WASM_BACKEND)) {
    const backend = await instantiate();
    // Priority 0, below the CPU backend's: nothing selects it implicitly.
    tf.registerBackend(WASM_BACKEND, () => backend, 0);
  }
  if (!(await tf.setBackend(WASM_BACKEND))) throw new Error("tfjs: setBackend('wasm') failed");
}
