// Recording as a wrapper around any adapter: every response it serves is appended to a JSONL file
// in the format replay_model reads, keyed by request and rollout (recording.ts). Engines offer it
// by spreading `RecordingFields` into their config; the model server applies it.
import { z } from "zod";
import type { ModelAdapter } from "./adapter.js";
import { Recorder } from "./recording.js";

export const RecordingFields = {
  /** Append every served response to this JSONL file, in the format replay_model reads. */
  record_path: z.string().min(1).nullish(),
};

/** `adapter`, with each response it returns appended to `path` (created with its folder if missing). */
export function withRecording(adapter: ModelAdapter, path: string): ModelAdapter {
  const recorder = new Recorder(path);
  const recorded: ModelAdapter = {
    models: () => adapter.models(),
    requestFields: adapter.requestFields,
    async createResponse(params, context) {
      const response = await adapter.createResponse(params, context);
      recorder.append(context.rollout, params, response);
      return response;
    },
  };
  // The wrapped adapter's capabilities stay as they are (methods bound: it may be a class instance).
  if (adapter.chatCompletions) recorded.chatCompletions = adapter.chatCompletions.bind(adapter);
  if (adapter.close) recorded.close = adapter.close.bind(adapter);
  return recorded;
}
