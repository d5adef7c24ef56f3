// `replay_model`: serves responses recorded by the `record_path` of any engine (recorded.ts), keyed
// by the canonical request and the rollout (see replay_key.ts). Offline, deterministic, no engine.
import { z } from "zod";
import { HttpError } from "../http/errors.js";
import type { ServerImplementation } from "../http/implementation.js";
import type { ResponsesCreateParams, RolloutRef } from "../protocol/index.js";
import type { ModelAdapter } from "./adapter.js";
import { commonPrefix, firstDifference } from "./first_difference.js";
import { RecordingIndex } from "./recording.js";
import { canonicalRequest, keyHash, replayKey } from "./replay_key.js";
import { describeRollout } from "./rollout_header.js";
import { buildModelServer } from "./server.js";
import { asHttpApp } from "../http/server.js";

export const ReplayModelConfig = z.strictObject({
  /** JSONL written by `record_path`; relative paths resolve against the working directory. */
  recording_path: z.string().min(1),
});
export type ReplayModelConfig = z.infer<typeof ReplayModelConfig>;

const ID = "replay_model";

/** What differs from the closest recorded request of the same rollout, if there is one. */
function missHint(recording: RecordingIndex, params: ResponsesCreateParams, rollout: RolloutRef | null): string {
  const recorded = recording.linesOf(rollout);
  if (recorded.length === 0) return `the recording has no request for this rollout at all (it covers ${recording.rolloutCount} rollout(s))`;
  const wanted = canonicalRequest(params) as Record<string, unknown>;
  let best: { request: Record<string, unknown>; shared: number } | undefined;
  for (const line of recorded) {
    const request = canonicalRequest(line.request) as Record<string, unknown>;
    const shared = commonPrefix(wanted.input, request.input);
    if (!best || shared >= best.shared) best = { request, shared };
  }
  return `${recorded.length} request(s) are recorded for this rollout; the closest differs at ${firstDifference(wanted, best!.request)}`;
}

export function replayAdapter(recording: RecordingIndex): ModelAdapter {
  return {
    models: () => (recording.models.size ? [...recording.models] : [ID]),
    requestFields: "replay_model",

    async createResponse(params, context) {
      const hash = keyHash(replayKey(params, context.rollout));
      const line = recording.line(hash);
      if (line) return line.response;
      throw new HttpError(
        404,
        `${ID}: no recorded response for ${describeRollout(context.rollout)} (key sha256 ${hash}) in ${recording.path}: ` +
          `${missHint(recording, params, context.rollout)}. The request differs from what was recorded; ` +
          "re-record with record_path set on openai_model or vllm_model.",
      );
    },
  };
}

const implementation: ServerImplementation<ReplayModelConfig> = {
  type: "responses_api_models",
  id: ID,
  configSchema: ReplayModelConfig,
  async build({ name, config }) {
    return asHttpApp(buildModelServer({ name, id: ID, adapter: replayAdapter(RecordingIndex.load(config.recording_path)) }));
  },
};

export default implementation;
