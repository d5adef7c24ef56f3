// example_single_tool_call: one stateless tool, and every rollout scores 1.0 whatever the model did.
// It exists to check the plumbing (row → agent → tool → verify), not the model.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";

export default defineEnvironment({
  id: "example_single_tool_call",
  description: "A single get_weather tool; every rollout is rewarded 1.0.",
  tools: {
    get_weather: {
      description: "Get the current weather for a city.",
      args: z.object({ city: z.string() }),
      handler: ({ city }) => ({ city, weather_description: `The weather in ${city} is cold.` }),
    },
  },
  verify: () => ({ reward: 1.0 }),
});
