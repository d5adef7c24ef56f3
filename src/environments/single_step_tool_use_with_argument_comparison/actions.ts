// The action shapes both sides of a comparison use, and how a model response becomes one, as
// NVIDIA-NeMo/Gym 07d6b0d resources_servers/single_step_tool_use_with_argument_comparison
// (common/verification_utils.py, common/response_utils.py) defines them: a chat message, one function
// call, or a batch of calls. A response's function calls win over its text; one call is a call, several
// a batch; otherwise the first output_text of the first assistant message that has one; else nothing.
import { z } from "zod";

export const MessageAction = z.object({ type: z.literal("message"), content: z.string() });
export const FunctionCallAction = z.object({ type: z.literal("function_call"), name: z.string(), arguments: z.string() });
export const FunctionCallBatchAction = z.object({ type: z.literal("function_call_batch"), calls: z.array(FunctionCallAction).min(1) });
export const ExpectedAction = z.discriminatedUnion("type", [MessageAction, FunctionCallAction, FunctionCallBatchAction]);

export type MessageAction = z.infer<typeof MessageAction>;
export type FunctionCallAction = z.infer<typeof FunctionCallAction>;
export type ExpectedAction = z.infer<typeof ExpectedAction>;

/** An action as NeMo Gym's model dumps it: the declared fields only, in their order. */
export function dumpAction(action: ExpectedAction): ExpectedAction {
  const call = (c: FunctionCallAction): FunctionCallAction => ({ type: "function_call", name: c.name, arguments: c.arguments });
  switch (action.type) {
    case "message":
      return { type: "message", content: action.content };
    case "function_call":
      return call(action);
    case "function_call_batch":
      return { type: "function_call_batch", calls: action.calls.map(call) };
  }
}

/** The calls an action stands for (none for a message). */
export function toolCallsOf(action: ExpectedAction): FunctionCallAction[] {
  if (action.type === "function_call_batch") return [...action.calls];
  if (action.type === "function_call") return [action];
  return [];
}

type Item = Record<string, unknown>;

/** The model response as an action, or null when it made no call and wrote no assistant text. */
export function extractAction(output: readonly Item[]): ExpectedAction | null {
  const calls: FunctionCallAction[] = [];
  let text: string | null = null;
  for (const item of output) {
    if (item.type === "function_call") {
      calls.push({ type: "function_call", name: String(item.name), arguments: String(item.arguments) });
    } else if (item.type === "message" && item.role === "assistant" && text === null) {
      const part = ((item.content ?? []) as Item[]).find((c) => c?.type === "output_text");
      if (part) text = String(part.text);
    }
  }
  if (calls.length === 1) return calls[0]!;
  if (calls.length > 1) return { type: "function_call_batch", calls };
  if (text !== null) return { type: "message", content: text };
  return null;
}
