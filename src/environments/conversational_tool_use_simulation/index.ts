// conversational_tool_use_simulation: NeMo Gym's conversational tool-use environment, simulation stage
// (matched at NVIDIA-NeMo/Gym 07d6b0d, resources_servers/conversational_tool_use_simulation/app.py).
// A policy plays a customer-service representative for a scenario's customer, played by a user-
// simulator model; the policy's tool calls are answered by a tool-result simulator model; a judge model
// scores the trajectory step by step. The conversational_tool_use/simulation agent drives the session
// routes (session.ts); `/verify` scores (verification.ts); `/aggregate_metrics` adds NeMo Gym's rates
// (metrics.ts). Domain, policy/tool and scenario generation are out of scope.
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { conversationalMetrics, keyMetrics } from "./metrics.js";
import { Config, type SessionState } from "./model.js";
import { trajectoryResult } from "./result.js";
import { seedSession, sessionRoute, stateOf } from "./session.js";
import { scoreTrajectory, shouldMask } from "./verification.js";

export default defineEnvironment({
  id: "conversational_tool_use_simulation",
  description: "Conversational tool use: a simulated customer, simulated tool results, and a step-by-step LLM judge.",
  configSchema: Config,
  state: z.custom<SessionState>(),
  seedSession: (row, ctx) => seedSession(row, ctx),
  // The session routes and every tool call (the scenario's tools are per row, so there is no fixed list).
  toolFallback: (name, body, ctx) => sessionRoute(name, body, ctx),
  // NeMo Gym's verify response allows extra fields: the whole row comes back.
  verifyEchoes: "all",
  verify: async (request, ctx) => {
    const state = stateOf(ctx);
    const diagnostics = await scoreTrajectory(state, ctx.config, ctx, request);
    const failures = state.failure_labels;
    const count = (label: string) => failures.filter((l) => l === label).length;
    const result = {
      reward: state.verification_reward ?? 0,
      instance_config: { mask_sample: shouldMask(state) },
      terminal_state: state.terminal_state,
      result: trajectoryResult(state),
      trajectory_invalid_reasons: state.invalid_reasons,
      failure_labels: state.failure_labels,
      num_user_messages: diagnostics.num_user_messages,
      num_agent_messages: diagnostics.num_agent_messages,
      num_tool_calls: diagnostics.num_tool_calls,
      num_tool_results: diagnostics.num_tool_results,
      num_tool_schema_failures: diagnostics.num_tool_schema_failures,
      num_user_failures: count("user_failure"),
      num_agent_failures: count("agent_failure"),
      num_tool_failures: count("tool_failure"),
      outside_policy_scope: diagnostics.outside_policy_scope,
      transferred: diagnostics.transferred,
      transfer_ground_truth_enforced: diagnostics.transfer_ground_truth_enforced,
      transfer_ground_truth_mismatch: diagnostics.transfer_ground_truth_mismatch,
      judge_skipped_for_transfer_mismatch: diagnostics.judge_skipped_for_transfer_mismatch,
      judge_generation_error: state.judge_generation_error,
      judge_diagnostics: state.judge_diagnostics,
      // Gymkit: usage of the user simulator, tool-result simulator and judge, each summed over its
      // calls in this rollout (null for a role that made none), for the agent to report apart from the policy's.
      simulator_usage: state.usage,
    };
    ctx.sessions.delete(ctx.sessionId);
    return result;
  },
  // The rates are over rollouts, not tasks: no merge of per-chunk results reproduces them exactly.
  aggregateMetricsScope: "whole_run",
  aggregateMetrics: (rows, ctx) => {
    const base = ctx.defaults(rows);
    const agent_metrics = { ...base.agent_metrics, ...conversationalMetrics(rows) };
    return { ...base, agent_metrics, key_metrics: keyMetrics(agent_metrics) };
  },
});
