// calendar: scheduling conversations. The model keeps the user's calendar and answers with it as a JSON
// list of events; the row's `exp_cal_state` says, per event id, its duration, the day's window and the
// user's constraint. reward 1 when the answer's calendar satisfies them all (grade.ts), 0 otherwise, or
// when the answer holds a <think> block or is missing. Reproduces NVIDIA-NeMo/Gym 07d6b0d
// resources_servers/calendar: the answer is the first content part's text of the last output item
// (a reasoning item with content counts too; a function call has none); the reply is NeMo Gym's base
// verify response (request, response, reward).
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { gradeAssistantResponse } from "./grade.js";

/** The answer NeMo Gym grades: the text of the first content part of the last output item. */
export function lastOutputText(output: ReadonlyArray<Record<string, unknown>>): string {
  const last = output.at(-1);
  const content = last?.content;
  if (!Array.isArray(content) || content.length === 0) return "";
  const first = content[0] as Record<string, unknown> | undefined;
  // A refusal part has no text: NeMo Gym's verify raises (the request fails).
  if (typeof first?.text !== "string") throw new TypeError("the last output item's first content part has no text");
  return first.text;
}

export default defineEnvironment({
  id: "calendar",
  description: "Calendar scheduling: reward 1 when the model's JSON calendar satisfies every expected event's duration, window and constraint without overlaps.",
  rowFields: {
    exp_cal_state: z.record(z.string(), z.unknown()),
  },
  reverifyMode: "unknown",
  verify: (request) => {
    const answer = lastOutputText(request.response.output as Array<Record<string, unknown>>);
    if (!answer) return { reward: 0.0 };
    // NeMo Gym scores any exception of the grader 0.
    try {
      return { reward: gradeAssistantResponse(answer, request.exp_cal_state)[0] };
    } catch {
      return { reward: 0.0 };
    }
  },
});
