// example_multi_turn_gymnasium: NeMo Gym's scripted multi-turn example on the Gymnasium-style
// contract (NVIDIA-NeMo/Gym 07d6b0d resources_servers/example_multi_turn_gymnasium/app.py), played by
// gymnasium_agent. After each assistant turn the next of the row's `follow_ups` comes back as the
// observation; once they run out, the episode ends with reward 1 when the row's `expected_answer`
// occurs (case-insensitively) in the model's last text, else 0.
import { z } from "zod";
import { outputText } from "../../protocol/index.js";
import { defineEnvironment } from "../../environment_kit/define.js";

export default defineEnvironment({
  id: "example_multi_turn_gymnasium",
  description: "Scripted multi-turn conversation: follow-up questions from the row, then the expected answer in the last reply.",
  // Follow-ups sent so far in the episode.
  state: z.number().int(),
  reset: (_metadata, ctx) => {
    ctx.sessions.set(ctx.sessionId, 0);
    return { observation: null, info: {} };
  },
  step: (action, metadata, ctx) => {
    const followUps = Array.isArray(metadata.follow_ups) ? (metadata.follow_ups as unknown[]) : [];
    const turn = ctx.sessions.get(ctx.sessionId) ?? 0;
    if (turn < followUps.length) {
      ctx.sessions.set(ctx.sessionId, turn + 1);
      return { observation: String(followUps[turn]), reward: 0, terminated: false, truncated: false };
    }
    const expected = typeof metadata.expected_answer === "string" ? metadata.expected_answer : "";
    // NeMo Gym's extract_text: every output_text of every message, joined without a separator.
    const text = outputText(action);
    const reward = expected !== "" && text.toLowerCase().includes(expected.toLowerCase()) ? 1.0 : 0.0;
    return { observation: null, reward, terminated: true, truncated: false };
  },
});
