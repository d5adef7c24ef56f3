// nvarc: ARC-AGI puzzles in NVARC's two modes, reward 1 when the predicted grid equals the expected
// output exactly. transductive: the model writes the grid (parse.ts); inductive: the model writes a
// Python `transform(grid)` that runs on the test input in Gymkit's sandbox (execute.ts). The mode is
// the row's `agent_mode`, else the config's. Matches NeMo Gym's resources_servers/nvarc at commit
// 07d6b0d: row fields, config keys, parsing, the sandboxed run's rules and the verify response.
import { z } from "zod";
import { pyStrip } from "../../verifiers/text/pystr.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { runTransform } from "./execute.js";
import { extractPythonCode, parseGridText, type Grid } from "./parse.js";

const Config = z.strictObject({
  agent_mode: z.string().default("transductive"),
  python_timeout_seconds: z.number().int().positive().default(30),
});
type Config = z.infer<typeof Config>;

const IntGrid = z.array(z.array(z.number().int()));

/** The assistant messages' text parts (or string content), newline-joined and stripped. */
function assistantText(output: readonly unknown[]): string {
  const texts: string[] = [];
  for (const item of output as Array<Record<string, unknown>>) {
    if (item?.type !== "message" || item.role !== "assistant") continue;
    if (typeof item.content === "string") texts.push(item.content);
    else if (Array.isArray(item.content)) for (const part of item.content as Array<Record<string, unknown>>) if (typeof part?.text === "string") texts.push(part.text);
  }
  return pyStrip(texts.join("\n"));
}

const sameGrid = (a: Grid, b: Grid) => a.length === b.length && a.every((row, i) => row.length === b[i]!.length && row.every((cell, j) => cell === b[i]![j]));

export default defineEnvironment({
  id: "nvarc",
  description: "ARC-AGI (NVARC): reward 1 when the grid the model writes (transductive) or its transform() computes (inductive) equals the expected output.",
  configSchema: Config,
  rowFields: {
    train: z.array(z.record(z.string(), z.unknown())).default([]),
    test_input: IntGrid.default([]),
    expected_output: IntGrid.default([]),
    task_id: z.string().nullable().default(null),
    agent_mode: z.string().nullable().default(null),
  },
  verifyEchoes: ["expected_output"],
  reverifyMode: "stateless",
  verify: async (request, ctx) => {
    const config = ctx.config as Config;
    const mode = request.agent_mode || config.agent_mode;
    const text = assistantText(request.response.output);
    let predicted: Grid | null;
    if (mode === "inductive") {
      const code = extractPythonCode(text);
      predicted = code === null ? null : await runTransform(code, request.test_input, config.python_timeout_seconds);
    } else {
      predicted = parseGridText(text);
    }
    const exact = predicted !== null && sameGrid(predicted, request.expected_output);
    return {
      reward: exact ? 1.0 : 0.0,
      predicted_output: predicted,
      extraction_successful: predicted !== null,
      exact_match: exact,
      agent_mode: mode,
    };
  },
});
