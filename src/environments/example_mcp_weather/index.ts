// example_mcp_weather: a smoke test for tools reached over MCP. One tool, get_weather(city), answers
// a fixed sentence and records the call in the rollout's session; /verify rewards a rollout whose
// session saw a get_weather call for the expected city (case-insensitive) and whose final answer
// contains that city's sentence. Its tools are served over MCP too (`/mcp`, NeMo Gym's
// expose_tools_over_mcp). Reproduces NVIDIA-NeMo/Gym 07d6b0d resources_servers/example_mcp_weather.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { assistantText, pyCasefold, weatherSentence } from "./weather.js";

interface State {
  expected_city?: unknown;
  weather_calls: Array<{ city: string; weather: string }>;
}

const VerifierMetadata = z.record(z.string(), z.unknown()).nullable().default(null);

/** `(verifier_metadata or {}).get("expected_city", "Paris")`. */
const expectedCityOf = (metadata: Record<string, unknown> | null): unknown => (metadata && "expected_city" in metadata ? metadata.expected_city : "Paris");

export default defineEnvironment({
  id: "example_mcp_weather",
  description: "MCP smoke test: call get_weather for the asked city and answer with its sentence.",
  exposeToolsOverMcp: true,
  seedFields: { verifier_metadata: VerifierMetadata },
  rowFields: { verifier_metadata: VerifierMetadata },
  // NeMo Gym's verify response allows extra fields: the row's come back.
  verifyEchoes: "all",
  state: z.custom<State>(),
  seedSession: (row, ctx) => {
    ctx.sessions.set(ctx.sessionId, { expected_city: expectedCityOf(row.verifier_metadata), weather_calls: [] });
    return {};
  },
  tools: {
    get_weather: {
      description: "Get a deterministic weather report for a city.",
      args: z.object({ city: z.string() }),
      handler: ({ city }, ctx) => {
        let state = ctx.sessions.get(ctx.sessionId);
        if (!state) ctx.sessions.set(ctx.sessionId, (state = { weather_calls: [] }));
        const weather = weatherSentence(city);
        state.weather_calls.push({ city, weather });
        return { weather };
      },
    },
  },
  verify: (request, ctx) => {
    const state = ctx.sessions.get(ctx.sessionId) ?? { weather_calls: [] };
    const city = expectedCityOf(request.verifier_metadata);
    if (typeof city !== "string") throw new TypeError(`expected_city must be a string, not ${JSON.stringify(city)}`);
    const expectedWeather = weatherSentence(city);
    const want = pyCasefold(city);
    const toolCallSeen = state.weather_calls.some((call) => pyCasefold(String(call.city ?? "")) === want);
    const finalText = assistantText(request.response.output as Array<Record<string, unknown>>);
    const mentions = pyCasefold(finalText).includes(pyCasefold(expectedWeather));
    return {
      reward: toolCallSeen && mentions ? 1.0 : 0.0,
      expected_weather: expectedWeather,
      tool_call_seen: toolCallSeen,
      final_response_mentions_weather: mentions,
    };
  },
});
