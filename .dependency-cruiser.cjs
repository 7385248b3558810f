// The structure rules `npm run check:structure` enforces (CI runs it): no import circles in src/, no feature
// importing another feature's routes, nothing importing the app's composition root, and the base layers
// (platform/, db/, config, env) importing no feature.
const FEATURES = "account|admin|albums|analysis|auth|billing|dev|files|jobs|keys|limits|mail|middleware|moderation|pages|serving|uploads";

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: "no-circular", severity: "error", comment: "Import circles hide order bugs.", from: { path: "^src/" }, to: { circular: true } },
    {
      name: "no-foreign-routes",
      severity: "error",
      comment: "A feature may use another feature's functions, never its routes (app.ts mounts them).",
      from: { path: "^src/([^/]+)/", pathNot: "^src/app\\.ts$" },
      to: { path: "^src/[^/]+/routes\\.tsx?$", pathNot: "^src/$1/" },
    },
    {
      name: "no-composition-root",
      severity: "error",
      comment: "Only the entry imports app.ts; nothing imports the entry.",
      from: { path: "^src/", pathNot: "^src/index\\.ts$" },
      to: { path: "^src/(app|index)\\.tsx?$" },
    },
    {
      name: "base-layers-import-no-feature",
      severity: "error",
      comment: "platform/, db/, config and env sit under every feature.",
      from: { path: "^src/(platform/|db/|config\\.ts|env\\.ts)" },
      to: { path: `^src/(${FEATURES})/` },
    },
    {
      name: "middleware-is-an-adapter",
      severity: "error",
      comment: "middleware/ adapts platform functions to Hono and reaches into no feature (auth's adapter is auth/middleware.ts).",
      from: { path: "^src/middleware/" },
      to: { path: `^src/(${FEATURES})/`, pathNot: "^src/middleware/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "\\.d\\.ts$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs", ".json"] },
  },
};
