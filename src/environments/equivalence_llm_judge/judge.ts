// One judge evaluation of equivalence_llm_judge, as NeMo Gym's server makes it (07d6b0d app.py
// `_generate_judge_evaluation`): the prompt template filled with question, expected and generated
// answer, an optional system message first, sent to the judge as a Responses request; the verdict is
// read from the last content part of the judge's last output item.
import { judgeMessages, type JudgeClient, type JudgeMessage, type PromptTemplate } from "../../judge/index.js";
import type { ResponseObject, ResponsesCreateParams } from "../../protocol/index.js";

/** One judge call as NeMo Gym records it under `judge_evaluations`. */
export interface EquivalenceEvaluation {
  responses_create_params: ResponsesCreateParams;
  response: ResponseObject;
  /** The label the judge gave (equal or not-equal label), or null when it gave neither. */
  verdict_label: string | null;
}

export interface JudgeSetup {
  client: JudgeClient;
  template: PromptTemplate;
  params: ResponsesCreateParams;
  systemMessage: string | null;
  equalLabel: string;
  notEqualLabel: string;
  /** Gymkit's `strict`: the label found last decides (see readVerdict). */
  strict?: boolean;
}

/**
 * The text NeMo Gym searches for labels: the last output item must be a message, and its last content
 * part's `text` (empty when that part has none). Undefined when there is nothing to search: the
 * verdict is then "not equal" without a label.
 */
function verdictText(response: ResponseObject): string | undefined {
  const last = response.output[response.output.length - 1] as Record<string, unknown> | undefined;
  if (!last || last.type !== "message" || !Array.isArray(last.content) || last.content.length === 0) return undefined;
  const part = last.content[last.content.length - 1] as Record<string, unknown> | null;
  const text = part !== null && typeof part === "object" ? part.text : undefined;
  return typeof text === "string" ? text : "";
}

/**
 * The verdict: equal when the equal label occurs and the not-equal label does not occur before it
 * (the first one wins); the not-equal label when that occurs otherwise; null when neither does.
 * `last` (Gymkit's `strict`): the label found last wins instead — the prompt asks for the verdict at
 * the end, so a label the judge quotes from the answer earlier in its reply does not decide.
 */
export function readVerdict(text: string | undefined, equalLabel: string, notEqualLabel: string, last = false): { equal: boolean; label: string | null } {
  if (text === undefined) return { equal: false, label: null };
  const eq = last ? text.lastIndexOf(equalLabel) : text.indexOf(equalLabel);
  const neq = last ? text.lastIndexOf(notEqualLabel) : text.indexOf(notEqualLabel);
  if (eq < 0 && neq < 0) return { equal: false, label: null };
  if (eq >= 0 && (neq < 0 || (last ? eq > neq : eq < neq))) return { equal: true, label: equalLabel };
  return { equal: false, label: notEqualLabel };
}

/** Asks the judge once; true when it says the two answers are equal. A failed call throws JudgeFailure. */
export async function judgeEquivalence(
  setup: JudgeSetup,
  values: { question: string; expected_answer: string; generated_answer: string },
): Promise<{ equal: boolean; evaluation: EquivalenceEvaluation }> {
  const messages: JudgeMessage[] = [];
  if (setup.systemMessage) messages.push({ role: "system", content: setup.systemMessage });
  messages.push({ role: "user", content: setup.template.fill(values) });
  const call = await setup.client.responses(judgeMessages(setup.params, messages));
  const verdict = readVerdict(verdictText(call.response), setup.equalLabel, setup.notEqualLabel, setup.strict === true);
  return {
    equal: verdict.equal,
    evaluation: { responses_create_params: call.responses_create_params, response: call.response, verdict_label: verdict.label },
  };
}
