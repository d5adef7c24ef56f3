// workplace_assistant: a multi-step tool-use sandbox of an office (email, calendar, analytics, project
// tasks, customers, company directory; 27 tools over CSV tables). Each rollout gets its own sandbox at
// /seed_session and calls the tools by name; /verify replays the rollout's function calls and the row's
// ground-truth calls on two fresh sandboxes and rewards 1.0 when the tables end up equal (strings
// compared case-insensitively but status, list_name and board). Reproduces NVIDIA-NeMo/Gym 07d6b0d
// resources_servers/workplace_assistant (app.py, utils.py, workplace_assistant_tools/).
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { toolReply } from "./reply.js";
import { isCorrect, Workbench } from "./workbench.js";

const GroundTruth = z.union([z.array(z.record(z.string(), z.string())), z.string()]);
/** Pydantic's lax `int`: an integer, a bool, or a string holding one. */
const LaxInt = z.union([z.number().int(), z.boolean(), z.string().regex(/^\s*[+-]?\d+(_\d+)*\s*$/)]);

export default defineEnvironment({
  id: "workplace_assistant",
  description: "Workplace assistant multi-step tool-using environment: reward when the tool calls leave the sandbox as the ground-truth calls do.",
  rowFields: {
    ground_truth: GroundTruth,
    id: LaxInt,
    category: z.string(),
    environment_name: z.string(),
  },
  state: z.custom<Workbench>(),
  seedSession: (_row, ctx) => {
    ctx.sessions.set(ctx.sessionId, new Workbench());
    return {};
  },
  toolFallback: (name, body, ctx) => {
    const bench = ctx.sessions.get(ctx.sessionId);
    if (!bench) return JSON.stringify({ detail: "Session not initialized. Please call seed_session first." });
    return toolReply(bench, name, body);
  },
  verify: (request) => {
    const output = (request.response.output ?? []) as Array<Record<string, unknown>>;
    const predicted = output.filter((item) => item.type === "function_call");
    return { reward: isCorrect(predicted, request.ground_truth) ? 1.0 : 0.0 };
  },
});
