// The agent's half of MCP servers attached to an environment (src/environment_kit/mcp_attach.ts):
// the environment's `/seed_session` reply lists the attached tools' function specs under
// `attached_tools`; they are appended to the row's `responses_create_params.tools` (a tool the row
// already names is kept as the row has it), so the model is offered them and the rollout records
// the tools it saw. Gymkit's own; NeMo Gym (07d6b0d) has no counterpart.
import type { DataRow } from "../protocol/index.js";

const ATTACHED_TOOLS_KEY = "attached_tools";

type Row = Record<string, unknown> & DataRow;

/** The row with the seed reply's attached tools appended; the row itself when there are none. */
export function withAttachedTools<R extends Row>(row: R, seedReply: unknown): R {
  if (seedReply === null || typeof seedReply !== "object" || Array.isArray(seedReply)) return row;
  const attached = (seedReply as Record<string, unknown>)[ATTACHED_TOOLS_KEY];
  if (!Array.isArray(attached) || attached.length === 0) return row;
  const params = row.responses_create_params;
  const own = Array.isArray(params.tools) ? (params.tools as Array<Record<string, unknown>>) : [];
  const named = new Set(own.map((tool) => tool?.name));
  const added = (attached as Array<Record<string, unknown>>).filter((tool) => tool !== null && typeof tool === "object" && !named.has(tool.name));
  if (added.length === 0) return row;
  return { ...row, responses_create_params: { ...params, tools: [...own, ...added] } };
}
