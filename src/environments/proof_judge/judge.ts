// proof_judge's judge calls (NeMo Gym 07d6b0d resources_servers/proof_judge/app.py, the Gym-internal
// path): one user message per call, sent to the judge model server's /v1/responses as the full
// create-params object NeMo Gym's pydantic model dumps (every optional field present, null), with the
// model named by `judge_model_name` or else the judge instance's name. The verifier scores the proof;
// with beta ≠ 0 the meta-verifier scores the policy's self-analysis, both asked at once.
import { parse as parseYaml } from "yaml";
import { PromptTemplate, type JudgeClient } from "../../judge/index.js";
import type { ResponsesCreateParams } from "../../protocol/index.js";
import { assistantText, extractBoxedScore, type ParsedAnswer } from "./parse.js";
import { PROMPTS } from "./prompts.js";

function bundledTemplate(path: string): PromptTemplate {
  const data = parseYaml(PROMPTS[path]!) as { user: string };
  return new PromptTemplate(data.user, `proof_judge ${path}`);
}

export const VERIFIER_TEMPLATE = bundledTemplate("prompt_templates/verifier.yaml");
export const META_VERIFIER_TEMPLATE = bundledTemplate("prompt_templates/meta-verifier.yaml");
export const PROVER_TEMPLATE = bundledTemplate("prompt_templates/prover.yaml");

export interface SamplingSettings {
  model: string;
  temperature: number;
  top_p: number;
  max_tokens: number;
}

/** The request NeMo Gym posts: NeMoGymResponseCreateParamsNonStreaming(...).model_dump(), field for field. */
export function judgeParams(userContent: string, settings: SamplingSettings): ResponsesCreateParams {
  return {
    background: null,
    include: null,
    input: [{ content: userContent, role: "user", type: "message" }],
    instructions: null,
    max_output_tokens: settings.max_tokens,
    max_tool_calls: null,
    metadata: null,
    model: settings.model,
    parallel_tool_calls: true,
    previous_response_id: null,
    prompt: null,
    reasoning: null,
    service_tier: null,
    store: null,
    temperature: settings.temperature,
    text: null,
    tool_choice: "auto",
    tools: [],
    top_logprobs: null,
    top_p: settings.top_p,
    truncation: null,
    user: null,
    stream: null,
  } as unknown as ResponsesCreateParams;
}

/** The judge's text: every assistant output_text of its reply, joined. */
async function ask(judge: JudgeClient, prompt: string, settings: SamplingSettings): Promise<string> {
  const { response } = await judge.responses(judgeParams(prompt, settings));
  return assistantText(response);
}

export interface Scores {
  /** The verifier's score of the proof (0 when it gave none of 0, 0.5, 1). */
  r_y: number;
  /** The meta-verifier's score of the self-analysis (beta ≠ 0 only). */
  r_meta?: number;
}

/** Asks the verifier (and with beta ≠ 0 the meta-verifier, concurrently) and reads their scores. */
export async function judgeProof(judge: JudgeClient, problem: string, parsed: ParsedAnswer, beta: number, settings: SamplingSettings): Promise<Scores> {
  const verifierPrompt = VERIFIER_TEMPLATE.fill({ problem, proof: parsed.proof });
  if (beta === 0) {
    return { r_y: extractBoxedScore(await ask(judge, verifierPrompt, settings)) || 0 };
  }
  const metaPrompt = META_VERIFIER_TEMPLATE.fill({ problem, proof: parsed.proof, proof_analysis: parsed.selfAnalysis });
  const [verifier, meta] = await Promise.all([ask(judge, verifierPrompt, settings), ask(judge, metaPrompt, settings)]);
  return { r_y: extractBoxedScore(verifier) || 0, r_meta: extractBoxedScore(meta) || 0 };
}
