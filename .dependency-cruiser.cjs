// The house's layers, checked by `npm run deps` (dependency-cruiser), from the ground up: a folder
// imports only folders listed before it, so the folder import graph cannot loop; an import up the list,
// a loop of files inside a folder, or one environment importing another fails the check. A new folder
// must be placed here (no-unlayered-folder).
const LAYERS = [
  ["protocol"],
  ["metrics"],
  ["tokens"],
  ["config"],
  ["http"],
  ["judge"],
  ["sandbox"],
  ["collect"],
  ["verifiers"],
  ["client"],
  ["viewer"],
  ["models"],
  ["environment_kit"],
  ["protocols"],
  ["agents"],
  ["environments"],
  ["orchestrate"],
  ["benchmarks"],
  ["audit"],
  ["cli"],
  ["index.ts"],
];

const folder = (name) => (name.endsWith(".ts") ? `^src/${name.replace(".", "\\.")}$` : `^src/${name}/`);

const up = LAYERS.flatMap((layer, level) => {
  const above = LAYERS.slice(level + 1).flat();
  if (above.length === 0) return [];
  return [
    {
      name: `up-from-${layer.join("-").replace(".ts", "")}`,
      comment: `${layer.join(", ")} sit below ${above.join(", ")}: an import up the layers is a back-edge`,
      severity: "error",
      from: { path: layer.map(folder).join("|") },
      to: { path: above.map(folder).join("|") },
    },
  ];
});

module.exports = {
  forbidden: [
    ...up,
    {
      name: "no-circular",
      comment: "files that import each other in a loop",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "environments-stay-apart",
      comment: "an environment never imports another environment",
      severity: "error",
      from: { path: "^src/environments/([^/]+)/" },
      to: { path: "^src/environments/([^/]+)/", pathNot: "^src/environments/$1/" },
    },
    {
      name: "client-speaks-protocol",
      comment: "gymkit/client depends only on the wire format and the HTTP client",
      severity: "error",
      from: { path: "^src/client/" },
      to: { path: "^src/", pathNot: "^src/(client|protocol|http)/" },
    },
    {
      name: "protocol-imports-nothing-of-ours",
      severity: "error",
      from: { path: "^src/protocol/" },
      to: { path: "^src/", pathNot: "^src/protocol/" },
    },
    {
      name: "no-unlayered-folder",
      comment: "a new folder under src/ must be given a layer in .dependency-cruiser.cjs",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^src/", pathNot: LAYERS.flat().map(folder).join("|") },
    },
  ],
  options: {
    includeOnly: "^src/",
    exclude: { path: "\\.test\\.ts$" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
  },
};
