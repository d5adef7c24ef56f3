// structeval: StructEval's non-renderable tasks (NeMo Gym 07d6b0d `resources_servers/structeval`,
// after TIGER-Lab's StructEval). The answer's document (a <|BEGIN_CODE|> block, a ``` fence, or the
// whole text) must parse as the row's `output_type` (JSON, YAML, TOML, XML or CSV): render score 1
// or 0. Each of the row's `raw_output_metric` key paths found in the parsed document adds to the
// key-validation score (the fraction found). Reward = round(0.2 × render + 0.8 × key score, 2).
// The raw-output score (the fraction of the paths that appear, case-insensitively, in the answer's
// text) is reported but not rewarded. Needs nothing but the request: "stateless" re-verification.
import { z } from "zod";
import { keyMetrics } from "../../metrics/aggregate.js";
import { outputText } from "../../protocol/index.js";
import { pyRound } from "../../verifiers/structured/index.js";
import { pyStrip } from "../../verifiers/text/pystr.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { extractCode } from "./extract.js";
import { structevalMetrics } from "./metrics.js";
import { parseContent } from "./parse.js";
import { pathExists } from "./paths.js";

/** StructEval's raw-output check: the fraction of keywords found in the answer, case-insensitively. */
export function rawOutputScore(answer: string, keywords: readonly string[]): number {
  if (keywords.length === 0) return 0;
  const lower = answer.toLowerCase();
  return keywords.filter((k) => lower.includes(k.toLowerCase())).length / keywords.length;
}

export default defineEnvironment({
  id: "structeval",
  description: "StructEval non-renderable formats: reward = round(0.2 × parses + 0.8 × fraction of key paths present, 2).",
  rowFields: {
    task_id: z.string(),
    task_name: z.string(),
    input_type: z.string(),
    output_type: z.string(),
    raw_output_metric: z.array(z.string()),
    rendering: z.boolean().default(false),
  },
  reverifyMode: "stateless",
  verify: (request) => {
    const echo = {
      task_id: request.task_id,
      task_name: request.task_name,
      input_type: request.input_type,
      output_type: request.output_type,
      raw_output_metric: request.raw_output_metric,
      rendering: request.rendering,
    };
    const answer = outputText(request.response);
    if (pyStrip(answer) === "") {
      return { reward: 0.0, ...echo, render_score: 0.0, key_validation_score: 0.0, raw_output_score: 0.0, error_type: "empty_response", error_message: "No assistant response text" };
    }
    const outputType = request.output_type.toLowerCase();
    const code = extractCode(answer, outputType);
    const rawScore = rawOutputScore(answer, request.raw_output_metric);
    const { parsed, renderScore, errorType, errorMessage } = parseContent(code, outputType);
    let keyScore = 0;
    if (renderScore === 1 && request.raw_output_metric.length > 0) {
      // A path with an unclosed "[" raises in upstream's tokenizer: the request fails, as there.
      const found = request.raw_output_metric.filter((path) => pathExists(parsed, path)).length;
      keyScore = found / request.raw_output_metric.length;
    }
    return {
      reward: pyRound(0.2 * renderScore + 0.8 * keyScore, 2),
      ...echo,
      render_score: renderScore,
      key_validation_score: keyScore,
      raw_output_score: rawScore,
      error_type: errorType,
      error_message: errorMessage,
    };
  },
  aggregateMetrics: (rows, ctx) => {
    const base = ctx.defaults(rows);
    const agent_metrics = { ...base.agent_metrics, ...structevalMetrics(rows) };
    return { ...base, agent_metrics, key_metrics: keyMetrics(agent_metrics) };
  },
});
