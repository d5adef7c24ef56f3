// An engine-double policy that plays back NeMo Gym's recorded model outputs: for the prompt of a
// recorded rollout, the model's n-th call answers with the n-th step of that rollout's `response.output`
// (its reasoning, text and function calls, up to the tool outputs that followed them). Only the model
// is a double; every Gymkit server it talks to is real.
import type { Action, Policy, Turn } from "../doubles/fake_engine.js";

type Item = Record<string, any>;

/** The model steps of a recorded output: each ends where the tool outputs answering its calls begin. */
export function modelSteps(output: Item[]): Action[] {
  const steps: Action[] = [];
  let current: Action = {};
  let sawOutput = false;
  const flush = () => {
    if (current.text !== undefined || current.reasoning !== undefined || current.toolCalls?.length) steps.push(current);
    current = {};
  };
  for (const item of output) {
    if (item.type === "function_call_output") {
      sawOutput = true;
      continue;
    }
    if (sawOutput) {
      flush();
      sawOutput = false;
    }
    if (item.type === "reasoning") {
      const text = (item.summary ?? []).map((s: Item) => s.text ?? "").join("");
      current.reasoning = (current.reasoning ?? "") + text;
    } else if (item.type === "message") {
      const text = (item.content ?? []).map((c: Item) => c.text ?? "").join("");
      current.text = (current.text ?? "") + text;
    } else if (item.type === "function_call") {
      (current.toolCalls ??= []).push({ name: item.name, arguments: item.arguments });
    }
  }
  flush();
  return steps;
}

const contentOf = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((c: any) => c?.text ?? "").join("") : "";

/** The last user message's text: how a recorded rollout is found again. */
export const lastUserText = (messages: Array<{ role?: string; content?: unknown }>): string => contentOf(messages.findLast((m) => m.role === "user")?.content);

/**
 * A policy answering each recorded prompt (keyed by its last user message) step by step; `fallback`
 * answers prompts it has no recording of.
 */
export function recordedPolicy(rollouts: Item[], fallback: Action = { text: "I do not know." }): Policy {
  const byPrompt = new Map(
    rollouts.map((r) => {
      const input = r.responses_create_params.input as Item[];
      return [lastUserText(input), { steps: modelSteps(r.response.output), offset: toolRunsOfInput(input) }];
    }),
  );
  return (turns: Turn[]) => {
    const lastUser = turns.findLastIndex((t) => t.role === "user");
    const recorded = byPrompt.get(turns[lastUser]?.content ?? "");
    if (!recorded) return fallback;
    // One model step per run of tool results seen since the prompt, beyond those the row's own input holds.
    let step = -recorded.offset;
    for (let i = lastUser + 1; i < turns.length; i++) if (turns[i]!.role === "tool" && turns[i - 1]!.role !== "tool") step++;
    return recorded.steps[Math.max(0, Math.min(step, recorded.steps.length - 1))] ?? fallback;
  };
}

/** Runs of tool outputs after the last user message of a row's own input. */
function toolRunsOfInput(input: Item[]): number {
  const lastUser = input.findLastIndex((m) => m.role === "user");
  let runs = 0;
  for (let i = lastUser + 1; i < input.length; i++) if (input[i]!.type === "function_call_output" && input[i - 1]!.type !== "function_call_output") runs++;
  return runs;
}
