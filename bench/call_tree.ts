// A V8 CPU profile (`node --cpu-prof`) as a call tree of sampled time, for the flame graphs of
// `npm run bench -- flames`: every frame put back at its source line (bench/profile.ts `unbundled`,
// so the bundle's minified chunks read as src/ files again), siblings that name the same function
// at the same line merged (V8 keeps one node per call site column; after mapping many are one),
// idle time left out. Times are in µs of sampled (wall-clock ticked) time, as the profile's.
import { groupOf, shortUrl, unbundled, type Profile, type ProfileNode } from "./profile.js";

export interface CallTree {
  /** "function file:line", or "(garbage collector)" and the like for V8's own pseudo-frames. */
  name: string;
  /** Package or Gymkit folder (bench/profile.ts `groupOf`): what the flame graph colours by. */
  group: string;
  /** µs sampled in this frame itself. */
  self: number;
  /** µs sampled in this frame and everything it called. */
  total: number;
  children: CallTree[];
}

function frameName(frame: ProfileNode["callFrame"]): string {
  const fn = frame.functionName || "(anonymous)";
  const url = shortUrl(frame.url);
  return url ? `${fn} ${url}:${frame.lineNumber + 1}` : fn;
}

/** The profile's tree with mapped, merged frames; the root ("all") holds every busy sample. */
export function callTree(profile: Profile): CallTree {
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  // V8's root node has no caller; its children are the program's frames and the pseudo-frames.
  const childIds = new Set(profile.nodes.flatMap((n) => n.children ?? []));
  const root: CallTree = { name: "all", group: "all", self: 0, total: 0, children: [] };
  const place = (node: ProfileNode, parent: CallTree) => {
    if (node.callFrame.functionName === "(idle)") return;
    const frame = unbundled(node.callFrame);
    const name = frameName(frame);
    let tree = parent.children.find((c) => c.name === name);
    if (!tree) {
      tree = { name, group: groupOf(frame.url, frame.functionName), self: 0, total: 0, children: [] };
      parent.children.push(tree);
    }
    tree.self += Math.max(0, self.get(node.id) ?? 0);
    for (const id of node.children ?? []) place(byId.get(id)!, tree);
  };
  for (const node of profile.nodes.filter((n) => !childIds.has(n.id))) {
    // The "(root)" node itself: its children hang off our root.
    for (const id of node.children ?? []) place(byId.get(id)!, root);
  }
  const sum = (tree: CallTree): number => (tree.total = tree.self + tree.children.reduce((t, c) => t + sum(c), 0));
  sum(root);
  prune(root);
  return root;
}

/** Frames with no sampled time below them (calls the sampler never caught) carry nothing to draw. */
function prune(tree: CallTree): void {
  tree.children = tree.children.filter((c) => c.total > 0);
  tree.children.forEach(prune);
}

/** Busy µs per group (self time), for a legend or a table. */
export function selfByGroup(tree: CallTree, into = new Map<string, number>()): Map<string, number> {
  if (tree.self > 0) into.set(tree.group, (into.get(tree.group) ?? 0) + tree.self);
  for (const child of tree.children) selfByGroup(child, into);
  return into;
}
