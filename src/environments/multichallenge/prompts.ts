// multichallenge's default judge prompt and system message: NeMo Gym's code defaults (07d6b0d,
// resources_servers/multichallenge/app.py, MultiChallengeConfig), copied verbatim (Apache-2.0,
// Copyright NVIDIA CORPORATION & AFFILIATES). NeMo Gym's configs set both inline (their texts differ
// slightly from these defaults); these apply to a config that leaves them out.
export const DEFAULT_JUDGE_PROMPT_TEMPLATE = "You are evaluating whether a model's response meets a specific criterion.\n\nCONVERSATION CONTEXT:\n{context}\n\nMODEL'S FINAL RESPONSE:\n{response}\n\nEVALUATION QUESTION:\n{question}\n\nEXPECTED ANSWER: {pass_criteria}\n\nDoes the model's response satisfy the criterion described in the evaluation question?\nAnalyze carefully, then respond with exactly [[YES]] or [[NO]] on the last line.";

export const DEFAULT_JUDGE_SYSTEM_MESSAGE = "You are a precise evaluator. Assess responses objectively based on the given criteria.";
