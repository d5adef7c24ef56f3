// `gym env init ID`: a new environment folder that runs as it is (ARCHITECTURE §10), in the shape of
// the built-in ones — the definition, its config (with `entrypoint`), five example rows, scored
// rollouts of them, a README and a test — so an author starts from something that works and changes
// it, instead of from a blank page.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const ENVIRONMENT_ID = /^[a-z][a-z0-9_]{0,63}$/;

export interface ScaffoldOptions {
  id: string;
  /** The folder to create (it may exist only if empty). */
  dir: string;
}

/** Writes the folder; returns the files written, relative to it. Throws a user-facing Error on bad input. */
export function scaffoldEnvironment({ id, dir }: ScaffoldOptions): string[] {
  if (!ENVIRONMENT_ID.test(id)) {
    throw new Error(`environment id "${id}" must be lower-case letters, digits and underscores, starting with a letter (it names routes, config keys and files)`);
  }
  if (existsSync(dir) && readdirSync(dir).length > 0) throw new Error(`${dir} already exists and is not empty; choose another --dir`);
  const files: Record<string, string> = {
    "index.mjs": definition(id),
    [`configs/${id}.yaml`]: config(id),
    "data/example.jsonl": exampleRows(id),
    "test.mjs": test(id),
    "data/example_rollouts.jsonl": exampleRollouts(id),
    "README.md": readme(id),
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return Object.keys(files);
}

function definition(id: string): string {
  return `// The ${id} environment: a tool the model may call, a reward, and metrics. Change it to your task;
// \`gym eval run --config configs/${id}.yaml\` runs it (its config names this file as \`entrypoint\`).
import { defineEnvironment, outputText, passAtKMetrics, z } from "gymkit";

/** A stand-in for your environment's world: what the lookup tool knows. */
const CAPITALS = { france: "Paris", japan: "Tokyo", kenya: "Nairobi", peru: "Lima", canada: "Ottawa" };

export default defineEnvironment({
  id: "${id}",
  description: "Name a country's capital; a lookup_capital tool is available.",
  // This instance's config fields (strict: a typo in the YAML is an error naming the key).
  configSchema: z.strictObject({ case_sensitive: z.boolean().default(false) }),
  // Row fields /verify reads (a row without them is answered 422, naming the field).
  rowFields: { expected_answer: z.string() },
  // Row fields the verify response (so every rollout line) carries back; NeMo Gym's math servers declare the gold too.
  verifyEchoes: ["expected_answer"],
  tools: {
    lookup_capital: {
      description: "Look up the capital city of a country.",
      args: z.object({ country: z.string().describe("The country's English name.") }),
      handler: ({ country }) => ({ capital: CAPITALS[country.trim().toLowerCase()] ?? null }),
    },
  },
  // /verify needs only the row and the response, so stored rollouts can be re-scored later.
  reverifyMode: "stateless",
  verify: (request, ctx) => {
    const text = outputText(request.response).trim();
    const norm = (s) => (ctx.config.case_sensitive ? s : s.toLowerCase());
    const correct = norm(text).includes(norm(request.expected_answer));
    return { reward: correct ? 1 : 0, extracted_answer: correct ? request.expected_answer : null };
  },
  // The default statistics plus pass@k / majority@k over repeats of each row.
  aggregateMetrics: (rows, ctx) => {
    const defaults = ctx.defaults(rows);
    const { metrics, per_sample_aggregate, metric_weights } = passAtKMetrics(rows, { scores: (row) => ({ accuracy: row.reward }), answerKey: "extracted_answer" });
    // metric_weights let a long run's metrics, computed in chunks of tasks, merge exactly.
    return { ...defaults, agent_metrics: { ...defaults.agent_metrics, ...metrics }, per_sample_aggregate, metric_weights };
  },
});
`;
}

function config(id: string): string {
  return `# The ${id} environment and the simple_agent that plays it with the policy model. \`entrypoint\`
# is relative to this file. Run (from the folder above ${id}/):
#   npx gym eval run --config ${id}/configs/${id}.yaml -i ${id}/data/example.jsonl -o results/${id}.jsonl \\
#     --model-type vllm_model --model-url http://127.0.0.1:8000/v1 --model Qwen/Qwen3-8B
${id}:
  resources_servers:
    ${id}:
      entrypoint: ../index.mjs
      description: "Name a country's capital; a lookup_capital tool is available."
${id}_simple_agent:
  responses_api_agents:
    simple_agent:
      resources_server:
        type: resources_servers
        name: ${id}
      model_server:
        type: responses_api_models
        name: policy_model
`;
}

const COUNTRIES: Array<[string, string]> = [
  ["France", "Paris"],
  ["Japan", "Tokyo"],
  ["Kenya", "Nairobi"],
  ["Peru", "Lima"],
  ["Canada", "Ottawa"],
];

function rowOf(id: string, country: string, capital: string): Record<string, unknown> {
  const tool = {
    type: "function",
    name: "lookup_capital",
    description: "Look up the capital city of a country.",
    parameters: {
      type: "object",
      properties: { country: { type: "string", description: "The country's English name." } },
      required: ["country"],
      additionalProperties: false,
    },
    strict: true,
  };
  return {
    responses_create_params: {
      input: [
        { role: "system", content: "Answer with the city's name. You may use the lookup_capital tool." },
        { role: "user", content: `What is the capital of ${country}?` },
      ],
      tools: [tool],
    },
    expected_answer: capital,
    agent_ref: { type: "responses_api_agents", name: `${id}_simple_agent` },
  };
}

function exampleRows(id: string): string {
  return COUNTRIES.map(([country, capital]) => `${JSON.stringify(rowOf(id, country, capital))}\n`).join("");
}

/**
 * Rollouts of the example rows as `gym eval run` writes them (row, response, reward, extras): a model
 * that looks each capital up and names it, except the last, which it guesses wrongly, so the file
 * shows a zero too. The test re-verifies them; replace them with rollouts of your own model.
 */
function exampleRollouts(id: string): string {
  return COUNTRIES.map(([country, capital], task) => {
    const guessed = task === COUNTRIES.length - 1 ? "Toronto" : undefined;
    const callId = `call_${task}`;
    const output = guessed
      ? [assistantText(`msg_${task}`, `I believe it is ${guessed}.`)]
      : [
          { type: "function_call", id: `fc_${task}`, call_id: callId, name: "lookup_capital", arguments: JSON.stringify({ country }), status: "completed" },
          { type: "function_call_output", call_id: callId, output: JSON.stringify({ capital }) },
          assistantText(`msg_${task}`, `The capital is ${capital}.`),
        ];
    const rollout = {
      _ng_task_index: task,
      _ng_rollout_index: 0,
      ...rowOf(id, country, capital),
      response: { id: `resp_${task}`, object: "response", created_at: 0, model: "example-model", output, status: "completed" },
      reward: guessed ? 0 : 1,
      extracted_answer: guessed ? null : capital,
    };
    return `${JSON.stringify(rollout)}\n`;
  }).join("");
}

function assistantText(id: string, text: string): Record<string, unknown> {
  return { type: "message", id, role: "assistant", status: "completed", content: [{ type: "output_text", text, annotations: [] }] };
}

function readme(id: string): string {
  return `# ${id}

Name a country's capital. The model may call \`lookup_capital\`; \`/verify\` gives **reward 1** when the
answer contains the row's \`expected_answer\` (case-insensitive unless \`case_sensitive\` is set), else 0,
with \`extracted_answer\` as an extra. Metrics add pass@k / majority@k. Change it to your task.

## Tools

- \`lookup_capital(country)\`: the capital from a small table, or null.

## Config fields

- \`case_sensitive\` (default false).

## Run it

\`\`\`bash
node --test ${id}/test.mjs
npx gym eval run --config ${id}/configs/${id}.yaml -i ${id}/data/example.jsonl -o results/${id}.jsonl \\
  --model-type vllm_model --model-url http://127.0.0.1:8000/v1 --model MODEL
\`\`\`

## Files

- \`index.mjs\`: the definition (\`defineEnvironment\` from gymkit).
- \`configs/${id}.yaml\`: the environment and the \`simple_agent\` that plays it (\`entrypoint\` names index.mjs).
- \`data/example.jsonl\`: five example rows.
- \`data/example_rollouts.jsonl\`: scored rollouts of those rows, written by \`gym env init\` as a model that
  looks the capital up (and one wrong guess); replace them with your own model's (\`gym eval run … -o\`).
- \`test.mjs\`: the environment on a real server on 127.0.0.1 (\`gymkit/testing\`), including a check that every
  stored rollout re-verifies to its recorded reward.
`;
}

function test(id: string): string {
  return `// The ${id} environment on a real server on 127.0.0.1, as agents see it. Run: node --test test.mjs
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { assistantMessage, replayExampleRollouts, responseWith, startInstance } from "gymkit/testing";
import environment from "./index.mjs";

let env;
before(async () => (env = await startInstance(environment)));
after(() => env.close());

test("lookup_capital answers from its table, and null for an unknown country", async () => {
  assert.deepEqual((await env.request("/lookup_capital", { country: "Kenya" })).body, { capital: "Nairobi" });
  assert.deepEqual((await env.request("/lookup_capital", { country: "Atlantis" })).body, { capital: null });
});

test("verify rewards the right city and only it, as every stored rollout records", async () => {
  const row = { responses_create_params: { input: "What is the capital of Peru?" }, expected_answer: "Lima" };
  const right = await env.request("/verify", { ...row, response: responseWith([assistantMessage("It is Lima.")]) });
  assert.equal(right.body.reward, 1);
  const wrong = await env.request("/verify", { ...row, response: responseWith([assistantMessage("Cusco")]) });
  assert.equal(wrong.body.reward, 0);
  // data/example_rollouts.jsonl: each, played back (its tool calls, then verify), scores what it recorded.
  const replayed = await replayExampleRollouts(env, new URL("./data/", import.meta.url));
  assert.ok(replayed.length > 0);
  for (const { line, reward, recorded } of replayed) assert.equal(reward, recorded, \`example_rollouts.jsonl line \${line}\`);
});

test("a row without expected_answer is rejected with 422", async () => {
  const result = await env.request("/verify", { responses_create_params: { input: "hi" }, response: responseWith([assistantMessage("x")]) });
  assert.equal(result.status, 422);
});
`;
}
