// A complete Gymkit environment in one file: a tool, a reward, metrics, and a per-instance resource.
// `word_count.yaml` beside it runs it (`entrypoint: word_count.mjs`); see README, "Write an environment".
import { defineEnvironment, outputText, passAtKMetrics, z } from "gymkit";

export default defineEnvironment({
  id: "word_count",
  description: "How many words does a sentence have? The model may call count_words; the last number of its answer is scored.",
  // This instance's own config fields (strict: a typo in the YAML is an error that names the key).
  configSchema: z.strictObject({ locale: z.string().default("en") }),
  // Row fields /verify reads; a row without them gets a 422 naming the field.
  rowFields: { sentence: z.string(), expected_count: z.number().int() },
  // Row fields the verify response (and so the rollout line) carries back; by default none, as NeMo Gym.
  verifyEchoes: ["expected_count"],
  // Made once per running instance and handed to every handler as ctx.resources.
  setup: ({ config }) => new Intl.Segmenter(config.locale, { granularity: "word" }),
  tools: {
    count_words: {
      description: "Count the words of a text.",
      args: z.object({ text: z.string().describe("The text whose words to count.") }),
      handler: ({ text }, ctx) => ({ count: countWords(ctx.resources, text) }),
    },
  },
  // Scoring needs nothing but the row and the response, so stored rollouts can be re-scored.
  reverifyMode: "stateless",
  verify: (request) => {
    const numbers = outputText(request.response).match(/-?\d+/g);
    const answer = numbers ? Number(numbers[numbers.length - 1]) : null;
    return { reward: answer === request.expected_count ? 1 : 0, extracted_answer: answer };
  },
  // The default statistics, plus pass@k / majority@k over repeated rollouts of each row.
  aggregateMetrics: (rows, ctx) => {
    const defaults = ctx.defaults(rows);
    const { metrics, per_sample_aggregate, metric_weights } = passAtKMetrics(rows, { scores: (row) => ({ accuracy: row.reward }), answerKey: "extracted_answer" });
    // metric_weights let a long run's metrics, computed in chunks of tasks, merge exactly.
    return { ...defaults, agent_metrics: { ...defaults.agent_metrics, ...metrics }, per_sample_aggregate, metric_weights };
  },
});

function countWords(segmenter, text) {
  let count = 0;
  for (const segment of segmenter.segment(text)) if (segment.isWordLike) count++;
  return count;
}
