// The flame graphs of `npm run bench -- flames` (bench/call_tree.ts, bench/flame_svg.ts): a profile's
// samples become a call tree with idle left out and same-named siblings merged, and the SVG draws each
// frame with a width in proportion to its samples, in name order whatever order V8 listed them in,
// with narrow siblings merged into one box and every name escaped.
import { describe, expect, it } from "vitest";
import { callTree } from "../bench/call_tree.js";
import { flameSvg } from "../bench/flame_svg.js";
import type { Profile } from "../bench/profile.js";

type Frame = [id: number, name: string, url: string, line: number, children: number[]];

/** A profile from frames and, per frame id, how many 1 ms samples landed in it. */
function profileOf(frames: Frame[], samples: Record<number, number>): Profile {
  const nodes = frames.map(([id, functionName, url, lineNumber, children]) => ({ id, callFrame: { functionName, url, lineNumber, columnNumber: id }, children }));
  const ids = Object.entries(samples).flatMap(([id, n]) => Array.from({ length: n }, () => Number(id)));
  return { nodes, samples: ids, timeDeltas: ids.map(() => 1000) };
}

const FRAMES: Frame[] = [
  [1, "(root)", "", -1, [2, 3, 4, 9]],
  [2, "(idle)", "", -1, []],
  [3, "(garbage collector)", "", -1, []],
  [4, "main", "file:///repo/src/cli/main.ts", 9, [5, 6, 7, 8]],
  // Two call sites of the same function at the same line (V8 tells them apart by column): one frame.
  [5, "parse", "file:///repo/node_modules/zod/v4/core/parse.js", 99, []],
  [6, "parse", "file:///repo/node_modules/zod/v4/core/parse.js", 99, []],
  [7, "a<b>&\"c\"", "file:///repo/src/http/server.ts", 0, []],
  [8, "tiny", "file:///repo/src/http/client.ts", 4, []],
  [9, "never sampled", "file:///repo/src/http/client.ts", 7, []],
];
const SAMPLES = { 2: 500, 3: 100, 4: 100, 5: 300, 6: 300, 7: 199, 8: 1 };

describe("bench flames", () => {
  it("builds the call tree: idle out, same frames merged, totals of what was sampled", () => {
    const tree = callTree(profileOf(FRAMES, SAMPLES));
    expect(tree.total).toBe(1_000_000); // µs: the 500 idle samples are not in it
    expect(tree.children.map((c) => c.name).sort()).toEqual(["(garbage collector)", "main src/cli/main.ts:10"]);
    const main = tree.children.find((c) => c.name.startsWith("main"))!;
    expect(main.group).toBe("gymkit cli/");
    expect(main.self).toBe(100_000);
    expect(main.total).toBe(900_000);
    const parse = main.children.filter((c) => c.name.startsWith("parse"));
    expect(parse).toHaveLength(1);
    expect(parse[0]).toMatchObject({ name: "parse zod/v4/core/parse.js:100", group: "zod", total: 600_000 });
  });

  it("draws widths in proportion, merges narrow siblings, escapes names, and does not depend on the profile's node order", () => {
    const svg = flameSvg(callTree(profileOf(FRAMES, SAMPLES)), { title: "t <1>", width: 1020, minFraction: 0.002 });
    const widthOf = (name: string) => {
      const box = new RegExp(`<title>${name}[^<]*</title><rect [^>]*width="([0-9.]+)"`).exec(svg);
      expect(box, name).not.toBeNull();
      return Number(box![1]);
    };
    // 1000 px of graph (1020 less two 10 px margins) for 1 s of busy samples; each box 0.5 px narrower (its gap).
    expect(widthOf("all")).toBeCloseTo(999.5, 1);
    expect(widthOf("main src/cli/main.ts:10")).toBeCloseTo(899.5, 1);
    expect(widthOf("parse zod/v4/core/parse.js:100")).toBeCloseTo(599.5, 1);
    expect(widthOf("a&lt;b&gt;&amp;&quot;c&quot; src/http/server.ts:1")).toBeCloseTo(198.5, 1);
    // 1 sample of 1000 is under 0.2%: drawn as the one narrow sibling, grey, without a box of its own frame colour.
    expect(svg).toContain("<title>tiny src/http/client.ts:5\n(merged)");
    expect(svg).not.toContain("never sampled");
    expect(svg).toContain("<text x=\"10\" y=\"24\" font-size=\"15\">t &lt;1&gt;</text>");
    // Siblings in name order: the same SVG whatever order the profile lists nodes and children in.
    const reversed = FRAMES.map(([id, name, url, line, children]) => [id, name, url, line, [...children].reverse()] as Frame).reverse();
    expect(flameSvg(callTree(profileOf(reversed, SAMPLES)), { title: "t <1>", width: 1020, minFraction: 0.002 })).toBe(svg);
    const x = (name: string) => Number(new RegExp(`<title>${name}[^<]*</title><rect x="([0-9.]+)"`).exec(svg)![1]);
    expect(x("a&lt;b&gt;")).toBeLessThan(x("parse zod"));
    expect(x("parse zod")).toBeLessThan(x("tiny"));
  });
});
