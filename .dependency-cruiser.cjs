// The structure rules `npm run check:structure` enforces (CI runs it): no import circles in src/, the top-level
// folders in layers (an import points down the list, type imports included, so folders form no circle either),
// no feature importing another feature's routes, nothing importing the app's composition root, and the base
// layer (platform/, db/, config) importing no feature.
const FEATURES = "account|admin|albums|analysis|auth|billing|dev|files|insights|search|jobs|keys|limits|mail|middleware|moderation|pages|serving|uploads|webhooks";

// The layers of src/, bottom to top (README § Architecture). Within a layer the order counts too: a top-level
// folder (or file) may import its own, any listed before it, never one listed after. A total order, so any
// circle between top-level folders has an import pointing up, and fails.
const LAYERS = [
  ["config", "db", "platform"],
  ["middleware"],
  ["limits", "mail", "auth", "keys"],
  ["webhooks", "serving", "analysis", "files", "search"],
  // albums before uploads: an upload from a URL adds its file to an album through albums' functions.
  ["albums", "uploads", "moderation", "billing", "account", "admin", "insights"],
  ["jobs", "pages", "dev"],
  ["app.ts", "index.ts"],
];
const ORDER = LAYERS.flat();
const entryPattern = (name) => (name.endsWith(".ts") ? `${name.replace(".", "\\.")}$` : `${name}/`);
const anyOf = (names) => `^src/(${names.map(entryPattern).join("|")})`;

const layerRules = ORDER.slice(0, -1).map((name, i) => ({
  name: "layer-order",
  severity: "error",
  comment: `${name} imports nothing listed after it in LAYERS: an import only points down the layers.`,
  from: { path: anyOf([name]) },
  to: { path: anyOf(ORDER.slice(i + 1)) },
}));
// platform/'s folders in the same way, bottom to top: a folder imports its own, any listed before it, never one after.
const PLATFORM = ["errors", "formats", "data", "crypto", "edge", "outbound", "http"];
const platformRules = PLATFORM.slice(0, -1).map((name, i) => ({
  name: "platform-order",
  severity: "error",
  comment: `platform/${name} imports no platform folder listed after it in PLATFORM.`,
  from: { path: `^src/platform/${name}/` },
  to: { path: `^src/platform/(${PLATFORM.slice(i + 1).join("|")})/` },
}));
const platformUnlisted = {
  name: "platform-unlisted",
  severity: "error",
  comment: "Every file of platform/ lies in one of the PLATFORM folders.",
  from: { path: "^src/" },
  to: { path: "^src/platform/", pathNot: `^src/platform/(${PLATFORM.join("|")})/` },
};
const unlisted = {
  name: "layer-unlisted",
  severity: "error",
  comment: "Every top-level folder and file of src/ has its place in LAYERS.",
};

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    ...platformRules,
    platformUnlisted,
    { ...unlisted, from: { path: "^src/" }, to: { path: "^src/", pathNot: anyOf(ORDER) } },
    { ...unlisted, from: { path: "^src/", pathNot: anyOf(ORDER) }, to: { path: "^src/" } },
    { name: "no-circular", severity: "error", comment: "Import circles hide order bugs (in src/ and packages/, type imports included).", from: { path: "^(src|packages)/" }, to: { circular: true } },
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
      comment: "platform/, db/ and config sit under every feature.",
      from: { path: "^src/(platform/|db/|config/)" },
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
