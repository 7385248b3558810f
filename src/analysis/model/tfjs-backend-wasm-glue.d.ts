// Types of the generated tfjs-backend-wasm-glue.js: the package's own declaration of its Emscripten factory.
export { default } from "@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm";
/** The @tensorflow/tfjs-backend-wasm version the glue was copied from. */
export declare const version: string;
