// A static SVG flame graph of one call tree (bench/call_tree.ts), for `npm run bench -- flames`.
// Classic layout: the root at the bottom, each frame's callees stacked on it, width ∝ sampled time;
// siblings in name order, so the same frames land in the same place run after run (a diff of two
// graphs reads as a change of widths, not a reshuffle). Siblings narrower than `minFraction` of the
// whole are merged into one "(n smaller frames)" box, which keeps the file small (a few hundred KB)
// and drops what no one can read at this width anyway. Colour is by package or Gymkit folder; every
// box has a `<title>` tooltip (its frame, package, share of busy samples, self share). No script, no
// fonts, no dependencies: it renders in a browser, an image viewer or GitHub's file view.
import type { CallTree } from "./call_tree.js";
import { selfByGroup } from "./call_tree.js";

export interface FlameOptions {
  title: string;
  /** One line under the title (what was run, how long). */
  subtitle?: string;
  /** Width of the graph in px (default 1200). */
  width?: number;
  /** Siblings below this share of the root are merged (default 0.002 = 0.2%). */
  minFraction?: number;
}

const FRAME_HEIGHT = 16;
const FONT_SIZE = 11;
/** Average glyph advance of an 11 px sans-serif label, to cut labels to their box. */
const CHAR_WIDTH = 6.2;
const PAD = 10;

/** Fixed hues for what every profile has; other packages get a hue from their name. */
const HUES: Array<[RegExp, number, number]> = [
  // [group pattern, hue, saturation %]
  [/^\(garbage collector\)$/, 0, 75],
  [/^\(program\)$|^native/, 0, 0],
  [/^node: module loading$/, 190, 55],
  [/^node:/, 212, 55],
  [/^gymkit /, 32, 85],
  [/^undici$/, 275, 45],
  [/^(fastify|find-my-way|avvio|light-my-request|@fastify\/.*)$/, 130, 45],
  [/^zod$/, 165, 50],
];

function hash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** The fill of a group: fixed families, each member a shade of its family's hue picked by name. */
export function colourOf(group: string): string {
  if (group === "(merged)") return "hsl(0,0%,85%)";
  const shade = hash(group) % 7; // the same group always gets the same shade
  for (const [pattern, hue, saturation] of HUES) {
    if (!pattern.test(group)) continue;
    const light = saturation === 0 ? 62 + shade * 2 : 55 + shade * 3;
    return `hsl(${(hue + (group.startsWith("gymkit ") ? shade * 4 : 0)) % 360},${saturation}%,${light}%)`;
  }
  return `hsl(${60 + (hash(group) % 60)},40%,${58 + shade * 2}%)`;
}

function escapeXml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => (c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&quot;"));
}

const pct = (part: number, whole: number) => `${((100 * part) / whole).toFixed(part / whole < 0.1 ? 2 : 1)}%`;

/** The tree with narrow siblings merged; its depth, for the height. */
function mergeNarrow(tree: CallTree, minTotal: number): CallTree {
  const wide = tree.children.filter((c) => c.total >= minTotal).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const narrow = tree.children.filter((c) => c.total < minTotal);
  const children = wide.map((c) => mergeNarrow(c, minTotal));
  if (narrow.length > 0) {
    const total = narrow.reduce((t, c) => t + c.total, 0);
    children.push({ name: narrow.length === 1 ? narrow[0]!.name : `(${narrow.length} smaller frames)`, group: "(merged)", self: total, total, children: [] });
  }
  return { ...tree, children };
}

function depthOf(tree: CallTree): number {
  return 1 + Math.max(0, ...tree.children.map(depthOf));
}

export function flameSvg(tree: CallTree, options: FlameOptions): string {
  const width = options.width ?? 1200;
  const minFraction = options.minFraction ?? 0.002;
  const whole = Math.max(tree.total, 1);
  const merged = mergeNarrow(tree, whole * minFraction);
  const depth = depthOf(merged);
  const groups = [...selfByGroup(tree)].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const legendRows = Math.ceil(Math.min(groups.length, 16) / 4);
  const top = PAD + 40;
  const graphHeight = depth * FRAME_HEIGHT;
  const height = top + graphHeight + PAD + legendRows * 18 + PAD;
  const scale = (width - 2 * PAD) / whole;
  const boxes: string[] = [];
  const draw = (node: CallTree, x: number, level: number) => {
    const w = node.total * scale;
    const y = top + graphHeight - (level + 1) * FRAME_HEIGHT;
    const tip = node === merged ? `all: ${(whole / 1e6).toFixed(2)} s busy sampled` : `${node.name}\n${node.group} · ${pct(node.total, whole)} of busy samples (self ${pct(node.self, whole)})`;
    const fill = node === merged ? "hsl(0,0%,80%)" : colourOf(node.group);
    const chars = Math.floor((w - 6) / CHAR_WIDTH);
    const label = chars < 3 ? "" : node.name.length <= chars ? node.name : `${node.name.slice(0, chars - 1)}…`;
    boxes.push(
      `<g><title>${escapeXml(tip)}</title><rect x="${x.toFixed(1)}" y="${y}" width="${Math.max(w - 0.5, 0.5).toFixed(1)}" height="${FRAME_HEIGHT - 1}" fill="${fill}"/>` +
        (label ? `<text x="${(x + 3).toFixed(1)}" y="${y + FRAME_HEIGHT - 4.5}">${escapeXml(label)}</text>` : "") +
        "</g>",
    );
    let childX = x;
    for (const child of node.children) {
      draw(child, childX, level + 1);
      childX += child.total * scale;
    }
  };
  draw(merged, PAD, 0);
  const legend = groups.slice(0, 16).map(([group, self], i) => {
    const x = PAD + (i % 4) * ((width - 2 * PAD) / 4);
    const y = top + graphHeight + PAD + Math.floor(i / 4) * 18;
    return `<rect x="${x.toFixed(1)}" y="${y}" width="12" height="12" fill="${colourOf(group)}"/><text x="${(x + 16).toFixed(1)}" y="${y + 10}">${escapeXml(`${group} ${pct(self, whole)} self`)}</text>`;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Verdana,DejaVu Sans,sans-serif" font-size="${FONT_SIZE}">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="${PAD}" y="${PAD + 14}" font-size="15">${escapeXml(options.title)}</text>`,
    options.subtitle ? `<text x="${PAD}" y="${PAD + 31}" fill="#555">${escapeXml(options.subtitle)}</text>` : "",
    ...boxes,
    ...legend,
    "</svg>",
    "",
  ].join("\n");
}
