// example_session_state_mgmt: a counter per rollout session. It shows how state set by
// `/seed_session` and changed by tools stays private to one rollout and is read back by `/verify`.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";

export default defineEnvironment({
  id: "example_session_state_mgmt",
  description: "A per-session counter: seed it, increment it with tools, verify its final value.",
  /** The counter of one session; absent until seeded or first touched. */
  state: z.number().int(),
  seedFields: { initial_count: z.number().int() },
  rowFields: { expected_count: z.number().int() },
  // Set-if-absent, as NeMo Gym does: re-seeding a session that already counts does not reset it.
  seedSession: (row, { sessionId, sessions }) => {
    if (!sessions.has(sessionId)) sessions.set(sessionId, row.initial_count);
    return {};
  },
  tools: {
    increment_counter: {
      description: "Add count to the counter.",
      args: z.object({ count: z.number().int() }),
      handler: ({ count }, { sessionId, sessions }) => {
        sessions.set(sessionId, (sessions.get(sessionId) ?? 0) + count);
        return { success: true };
      },
    },
    get_counter_value: {
      description: "Read the counter.",
      args: z.object({}),
      handler: (_args, { sessionId, sessions }) => {
        const count = sessions.get(sessionId) ?? 0;
        sessions.set(sessionId, count);
        return { count };
      },
    },
  },
  // A session that never touched the counter scores 0, whatever the expected value.
  verify: (request, { sessionId, sessions }) => {
    const count = sessions.get(sessionId);
    return { reward: count !== undefined && count === request.expected_count ? 1.0 : 0.0 };
  },
});
