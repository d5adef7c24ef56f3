// `npm run bench -- profile [--top 25] [--per-rollout-ms X] FILE.cpuprofile…`
// Summarises V8 CPU profiles (`node --cpu-prof`; `gym env start --process-per-server` passes the flag on
// to every server it forks) as Markdown: per profile, the share of busy samples by package or folder
// and the functions with the most self time. Shares are of the samples that were not idle; with
// --rollouts they are also put as µs per rollout, scaled to the profile's busy sampled time (the
// sampler ticks on wall time, so on a loaded machine the absolute figures run high; the shares hold).
import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { basename, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { markdownTable } from "./machine.js";

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export function shortUrl(url: string): string {
  if (url.includes("/node_modules/")) return url.replace(/^file:\/\/.*\/node_modules\//, "");
  return url.replace(/^file:\/\/.*?\/(dist|src)\//, "$1/");
}

export function groupOf(url: string, name: string): string {
  const short = shortUrl(url);
  if (!short) return name.startsWith("(") ? name : "native (syscalls, JSON, builtins)";
  if (short.startsWith("node:")) return short.startsWith("node:internal/modules") || short.startsWith("node:internal/bootstrap") ? "node: module loading" : "node: core (streams, net, http, events…)";
  const parts = short.split("/");
  // What the bundle's source maps do not place: a chunk's top-level code (its modules' bodies run as
  // one function) and esbuild's own helpers.
  if (parts[0] === "dist" && parts[1] === "bundle") return "bundle: chunk top level, esbuild helpers";
  if (parts[0] === "dist" || parts[0] === "src") return `gymkit ${parts[1]}/`;
  return parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
}

const sourceMaps = new Map<string, SourceMap | undefined>();

/**
 * The bundled CLI's frames (dist/bundle/chunk-*.js, minified to a few long lines) put back at their
 * TypeScript source line through the bundle's own `.js.map`, so the tables name src/ files again.
 */
export function unbundled(frame: ProfileNode["callFrame"]): ProfileNode["callFrame"] {
  if (!frame.url.startsWith("file://") || !frame.url.includes("/dist/bundle/")) return frame;
  const file = fileURLToPath(frame.url);
  if (!sourceMaps.has(file)) sourceMaps.set(file, existsSync(`${file}.map`) ? new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8"))) : undefined);
  const entry = sourceMaps.get(file)?.findEntry(frame.lineNumber, frame.columnNumber);
  if (!entry || !("originalSource" in entry) || !entry.originalSource) return frame;
  const source = resolve(dirname(file), entry.originalSource);
  return { ...frame, url: `file://${source}`, lineNumber: entry.originalLine };
}

/** The Markdown `bench profile` prints for one profile: shares by package or folder, and by function. */
export function profileTables(profile: Profile, title: string, options: { top?: number; perRolloutMs?: number } = {}): string {
  const top = options.top ?? 25;
  const perRolloutMs = options.perRolloutMs ?? 0;
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byFunction = new Map<string, number>();
  const byGroup = new Map<string, number>();
  let busy = 0;
  for (const node of profile.nodes) {
    const t = self.get(node.id) ?? 0;
    const { functionName, url, lineNumber } = unbundled(node.callFrame);
    if (t === 0 || functionName === "(idle)") continue;
    busy += t;
    const key = shortUrl(url) ? `${functionName || "(anonymous)"} ${shortUrl(url)}:${lineNumber + 1}` : `${functionName || "(anonymous)"} (native)`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + t);
    const group = groupOf(url, functionName);
    byGroup.set(group, (byGroup.get(group) ?? 0) + t);
  }
  const perRollout = (t: number) => (perRolloutMs > 0 ? [((t / busy) * perRolloutMs * 1000).toFixed(0)] : []);
  const headers = ["", "share of busy samples", ...(perRolloutMs > 0 ? [`µs of ${perRolloutMs} ms / rollout`] : [])];
  const rows = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, top)
      .map(([k, t]) => [`\`${k}\``, `${((100 * t) / busy).toFixed(1)}%`, ...perRollout(t)]);
  return [
    `### ${title}: ${(busy / 1e6).toFixed(1)} s busy sampled`,
    markdownTable(["package / folder", ...headers.slice(1)], rows(byGroup)),
    markdownTable(["function (self time)", ...headers.slice(1)], rows(byFunction)),
    "",
  ].join("\n\n");
}

export default async function main(): Promise<void> {
  const argv = process.argv.slice(3);
  const top = argv.includes("--top") ? Number(argv[argv.indexOf("--top") + 1]) : 25;
  const perRolloutMs = argv.includes("--per-rollout-ms") ? Number(argv[argv.indexOf("--per-rollout-ms") + 1]) : 0;
  const files = argv.filter((a) => a.endsWith(".cpuprofile"));
  for (const file of files) {
    process.stdout.write(profileTables(JSON.parse(readFileSync(file, "utf8")) as Profile, basename(file), { top, perRolloutMs }));
  }
}
