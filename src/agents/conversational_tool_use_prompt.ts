// The policy's system prompt and tool list for the conversational tool-use agent, rendered from a
// row's top-level `policy` and `tools` (NVIDIA-NeMo/Gym 07d6b0d
// responses_api_agents/conversational_tool_use/simulation/prompt.py). A row's
// `responses_create_params` must hold exactly these renderings: the agent refuses a row whose policy
// model would see a different contract from the one the environment verifies against.
//
// The two templates are data: the rows NeMo Gym ships embed their rendered text, so they are kept
// character for character (Apache-2.0, Copyright NVIDIA CORPORATION & AFFILIATES).

const TEMPLATE_HEAD =
  "You are a customer service agent that helps the user.  The policy that determines how you should respond to requests from users is described below between the <policy> and </policy> tags.\n\nIn each turn you can either:\n- Send a message to the user.\n";
const TEMPLATE_TAIL = "\nYou cannot do both at the same time.\n\n<policy>\n{domain_policy}\n</policy>\n\nTry to be helpful and always follow the policy.";

/** The prompt when the policy may make one tool call per turn. */
export const AGENT_SYSTEM_MESSAGE_TEMPLATE = `${TEMPLATE_HEAD}- Make a tool call.${TEMPLATE_TAIL}`;
/** The prompt when `parallel_tool_calls` is on. */
export const AGENT_PARALLEL_SYSTEM_MESSAGE_TEMPLATE = `${TEMPLATE_HEAD}- Make one or more tool calls.${TEMPLATE_TAIL}`;

/** The system message for a domain's policy text. */
export function agentSystemMessage(policy: string, parallelToolCalls = false): string {
  const template = parallelToolCalls ? AGENT_PARALLEL_SYSTEM_MESSAGE_TEMPLATE : AGENT_SYSTEM_MESSAGE_TEMPLATE;
  // A function replacer: `$` in a policy is text, not a replacement pattern.
  return template.replace("{domain_policy}", () => policy);
}

export interface ResponsesFunctionTool {
  type: "function";
  name: string;
  description: string;
  parameters: unknown;
  strict: boolean;
}

/**
 * A scenario's tool signatures as the Responses API function tools the policy sees: the description
 * from `doc` (else `description`, else empty), the JSON schema from `params` (else `parameters`, else
 * an empty object schema), `strict` unless the signature turns it off.
 */
export function responsesApiTools(tools: ReadonlyArray<Record<string, unknown>>): ResponsesFunctionTool[] {
  return tools.map((tool) => {
    const description = tool.doc ?? tool.description ?? "";
    const parameters = tool.params ?? tool.parameters ?? { type: "object", properties: {} };
    return {
      type: "function",
      name: tool.name as string,
      description: description as string,
      parameters,
      strict: pythonTruthy(tool.strict === undefined ? true : tool.strict),
    };
  });
}

/** Python's `bool(x)` for JSON values. */
export function pythonTruthy(value: unknown): boolean {
  if (value === null || value === undefined || value === false || value === 0 || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}
