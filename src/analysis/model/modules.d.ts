// Data modules (wrangler's default rule bundles *.bin as an ArrayBuffer).
declare module "*.bin" {
  const data: ArrayBuffer;
  export default data;
}
