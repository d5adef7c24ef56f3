// arc_agi: an ARC-AGI puzzle; reward 1 when the model's answer grid equals the expected output grid
// exactly. Matches NeMo Gym's resources_servers/arc_agi at commit 07d6b0d: the same row fields, the same
// grid extraction (grid.ts) and the same verify response (expected grid, predicted grid or null,
// whether a grid was found). `/verify` needs only the request ("stateless").
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { assistantText, parseGrid, sameGrid, type Grid } from "./grid.js";

/** Python int as pydantic reads one from JSON (lax): an integer, or a float with no fraction. */
const Int = z.number().int();
const IntGrid = z.array(z.array(Int));

export default defineEnvironment({
  id: "arc_agi",
  description: "ARC-AGI puzzles: reward 1 when the boxed answer grid equals the expected output grid.",
  rowFields: {
    train: z.array(z.record(z.string(), z.unknown())).default([]),
    test_input: IntGrid.default([]),
    expected_output: IntGrid.default([]),
    task_id: z.string().nullable().default(null),
  },
  verifyEchoes: ["expected_output"],
  reverifyMode: "stateless",
  verify: (request) => {
    const predicted: Grid | null = parseGrid(assistantText(request.response.output));
    return {
      reward: predicted !== null && sameGrid(predicted, request.expected_output) ? 1.0 : 0.0,
      predicted_output: predicted === null ? null : predicted.map((row) => row.map((cell) => (typeof cell === "bigint" ? Number(cell) : cell))),
      extraction_successful: predicted !== null,
    };
  },
});
