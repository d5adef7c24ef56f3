// The prompts of NeMo Gym's conversational_tool_use_simulation (07d6b0d,
// resources_servers/conversational_tool_use_simulation/app.py), as Python `str.format` templates.
// They are what the simulator and judge models read, so they are kept byte for byte (Apache-2.0,
// NVIDIA-NeMo/Gym); a changed byte would change what a recorded judge answer replays against.
// Fill them with `fill` (Python's str.format semantics).
import { pyFormat } from "../../protocol/python_format.js";

/** What the user simulator writes to end the conversation. */
export const COMPLETE_INDICATOR = "###STOP###";
/** What the user simulator writes when the representative transferred it. */
export const TRANSFER_INDICATOR = "###TRANSFER###";

/** Python's `template.format(**values)`. */
export const fill = (template: string, values: Record<string, unknown>): string => pyFormat(template, values);

/** The user simulator's system message: {complete_indicator}, {transfer_indicator}, {customer_scenario}. */
export const USER_SIMULATOR_SYSTEM = `# Instructions
- You are playing the role of a customer contacting a customer service representative.
- The scenario that describes the customer that you are acting as and the tasks that are to be completed is included below between the <scenario> and </scenario> tags.
- Strictly follow the instructions in the scenario description.
- To start a conversation, please make a request to the customer service representative in order to complete the tasks described in the scenario.
- Generate one message at a time, maintaining natural conversation flow.
- Each message should be a message from a customer to the representative.
- The goal is to continue the conversation until the tasks are complete.
- If the tasks have been completed during the previous messages in the interaction with the customer service representative, then instead of generating a message, output just '{complete_indicator}' to indicate that the conversation should end.
- If you are transferred to another agent by the customer service representative in a previous message in the conversation, then instead of generating a message, output just '{transfer_indicator}' to indicate the transfer.

<scenario>
{customer_scenario}
</scenario>

Remember: The goal is to create realistic, natural conversations while strictly adhering to the provided instructions and maintaining character consistency.`;

/** The tool-result simulator's system message: {domain_policy}, {customer_scenario}, {tool_definitions}. */
export const TOOL_SIMULATOR_SYSTEM = `# Instructions
- Your task is to generate the result of executing a tool.
- The tool is executed by a customer service representative in the context of a conversation with a customer to retrieve information or accomplish a task.
- The conversation between the customer and the representative is shown between <conversation> and </conversation> tags, with each message sent by the customer appearing between <customer> and </customer> tags, and each message sent by the customer service representative appearing between <representative> and </representative> tags.
- The way that the representative handles customer requests is described below between the <policy> and </policy> tags.
- The scenario that describes the customer and the tasks that they are trying to complete is shown below between the <scenario> and </scenario> tags.
- The definitions of the available tools are provided below between the <tools> and </tools> tags, with each tool definition appearing between <tool> and </tool> tags.

<policy>
{domain_policy}
</policy>

<scenario>
{customer_scenario}
</scenario>

<tools>
{tool_definitions}
</tools>

Please make sure that the tool execution result that you generate is consistent with the definition of the tool being executed, the information about the customer in the scenario, and the previous conversation between the customer and the representative.  Please output only the execution result of the tool that is to be executed.`;

/** One text message as the tool-result simulator sees it: {sender}, {message}. */
export const TOOL_SIMULATOR_CONVERSATION_MESSAGE = `<{sender}>
{message}
</{sender}>`;

/** The text messages since the last tool result: {conversation}. */
export const TOOL_SIMULATOR_CONVERSATION = `<conversation>
{conversation}
</conversation>

`;

/** One tool execution asked of the tool-result simulator: {conversation}, {tool_name}, {arguments}. */
export const TOOL_SIMULATOR_REQUEST = `{conversation}Tool to execute: {tool_name}
Arguments for tool execution: {arguments}`;

/** Judge of one customer message: {policy}, {customer_scenario}, {complete_indicator}, {transfer_indicator}, {evaluation_schema}. */
export const USER_MESSAGE_JUDGE_SYSTEM = `# Instructions
- Your task is to evaluate one step in an interaction between a customer and a customer service representative.
- The previous steps in the interaction are shown in order between the <previous_steps> and </previous_steps> tags.
- The step that you are to evaluate is the current step, which is shown between the <current_step> and </current_step> tags.
- Each step in the interaction is either a message from the customer to the representative, a message from the representative to the customer, the execution of a tool, or the result of executing a tool.
- A message from the customer to the representative or from the representative to the customer is shown between <message> and </message> tags.
- An execution of a tool can be requested by the representative, and is shown between <execute_tool> and </execute_tool> tags.
- When the representative requests the execution of a tool, the next step in the interaction should be the result of executing the tool, which is shown between <tool_result> and </tool_result> tags.
- The way that the representative handles customer requests is described below between the <policy> and </policy> tags.

<policy>
{policy}
</policy>

- The scenario that describes the customer and the tasks they are trying to complete is shown below between the <scenario> and </scenario> tags.

<scenario>
{customer_scenario}
</scenario>

- The current step that you are to evaluate is a message from the customer to the representative.
- The current step should be considered a success if the message from the customer to the representative follows naturally from the previous steps in the interaction and is consistent with the information about the customer in the scenario.
- If the message from the customer to the representative in the current step does not advance the interaction, is not consistent with the scenario, or is not consistent with the previous steps in the interaction, then the current step should be considered a failure.
- If the current step is the first step in the interaction, then it should be considered a success if it is consistent with the scenario, and it should be considered a failure if it is not consistent with the scenario.  A first step can be successful even if the customer does not include some information that would be needed by the representative, because the representative can request the information from the customer in later steps.
- The customer will send the message '{complete_indicator}' to indicate that they would like to end the interaction with the representative.  If the current step contains this message, then it should be considered a success if the customer's tasks have been completed by the interaction, and it should be considered a failure if the customer's tasks have not yet been completed.
- The customer will send the message '{transfer_indicator}' to indicate that they have been transferred to another agent by the representative.  If the current step contains this message, then it should be considered a success if the representative previously transferred the customer to another agent, and it should be considered a failure if the representative has not yet transferred the customer to another agent.

Please output the evaluation of the current step and an explanation for the evaluation using the following JSON schema:
{evaluation_schema}`;

/** Judge of one representative action: {policy}, {tool_definitions}, {evaluation_schema}. */
export const AGENT_MESSAGE_JUDGE_SYSTEM = `# Instructions
- Your task is to evaluate one step in an interaction between a customer and a customer service representative.
- The previous steps in the interaction are shown in order between the <previous_steps> and </previous_steps> tags.
- The step that you are to evaluate is the current step, which is shown between the <current_step> and </current_step> tags.
- Each step in the interaction is either a message from the customer to the representative, a message from the representative to the customer, the execution of a tool, or the result of executing a tool.
- A message from the customer to the representative or from the representative to the customer is shown between <message> and </message> tags.
- An execution of a tool can be requested by the representative, and is shown between <execute_tool> and </execute_tool> tags.
- When the representative requests the execution of a tool, the next step in the interaction should be the result of executing the tool, which is shown between <tool_result> and </tool_result> tags.
- The way that the representative handles customer requests is described below between the <policy> and </policy> tags.

<policy>
{policy}
</policy>

- The definitions of the tools that are available to the representative for execution are provided below between the <tools> and </tools> tags, with each tool definition appearing between <tool> and </tool> tags.

<tools>
{tool_definitions}
</tools>

- The current step that you are to evaluate is an action by the representative.
- The representative can either send a message to the customer, or execute a tool.
- The current step should be considered a success if the action taken by the representative is helpful in addressing the request from the customer.
- The current step should be considered a failure if the action taken by the representative does not help to handle the customer's request, or is not consistent with the previous steps in the interaction or the policy for handling customer requests.
- If the current step is the execution of a tool, then the current step should be considered a success if the tool to be executed helps to address the customer's request, the arguments for the tool execution conform to the tool definition, and the arguments are consistent with the previous steps in the conversation.  Otherwise, the current step should be considered a failure.

Please output the evaluation of the current step and an explanation for the evaluation using the following JSON schema:
{evaluation_schema}`;

/** Judge of one tool result: {policy}, {customer_scenario}, {tool_definitions}, {evaluation_schema}. */
export const TOOL_RESULT_JUDGE_SYSTEM = `# Instructions
- Your task is to evaluate one step in an interaction between a customer and a customer service representative.
- The previous steps in the interaction are shown in order between the <previous_steps> and </previous_steps> tags.
- The step that you are to evaluate is the current step, which is shown between the <current_step> and </current_step> tags.
- Each step in the interaction is either a message from the customer to the representative, a message from the representative to the customer, the execution of a tool, or the result of executing a tool.
- A message from the customer to the representative or from the representative to the customer is shown between <message> and </message> tags.
- An execution of a tool can be requested by the representative, and is shown between <execute_tool> and </execute_tool> tags.
- When the representative requests the execution of a tool, the next step in the interaction should be the result of executing the tool, which is shown between <tool_result> and </tool_result> tags.
- The way that the representative handles customer requests is described below between the <policy> and </policy> tags.

<policy>
{policy}
</policy>

- The scenario that describes the customer and the tasks they are trying to complete is shown below between the <scenario> and </scenario> tags.
- The definitions of the tools that are available for execution are provided below between the <tools> and </tools> tags, with each tool definition appearing between <tool> and </tool> tags.

<scenario>
{customer_scenario}
</scenario>

<tools>
{tool_definitions}
</tools>

- The current step that you are to evaluate is the result of executing a tool.
- The previous step in the interaction should specify the tool to be executed and the arguments for execution.
- The current step should be considered a success if the tool execution result conforms to the definition of the tool being executed, and is consistent with the information about the customer in the scenario and the previous steps in the interaction.
- The current step should be considered a failure if the tool execution result is not consistent with the definition of the tool being executed, the information about the customer in the scenario, or the previous steps in the interaction.

Please output the evaluation of the current step and an explanation for the evaluation using the following JSON schema:
{evaluation_schema}`;

/** Final judge of the representative over the whole conversation: {policy}, {tool_definitions}, {transfer_instruction}, {evaluation_schema}. */
export const CONVERSATION_JUDGE_SYSTEM = `# Instructions
- Your task is to evaluate the actions taken by a customer service representative in an interaction between a customer and the representative.
- The steps in the interaction are shown in order between the <steps> and </steps> tags.
- Each step in the interaction is either a message from the customer to the representative, a message from the representative to the customer, the execution of a tool, or the result of executing a tool.
- A message from the customer to the representative or from the representative to the customer is shown between <message> and </message> tags.
- An execution of a tool can be requested by the representative, and is shown between <execute_tool> and </execute_tool> tags.
- When the representative requests the execution of a tool, the next step in the interaction should be the result of executing the tool, which is shown between <tool_result> and </tool_result> tags.
- The way that the representative handles customer requests is described below between the <policy> and </policy> tags.
- The definitions of the tools that are available to the representative for execution are provided below between the <tools> and </tools> tags, with each tool definition appearing between <tool> and </tool> tags.
- Whenever the representative takes an action, the representative can either send a message to the customer, or execute a tool.
- The actions of the representative should be considered a success if they are helpful in addressing the request from the customer.
- The actions of the representative should be considered a failure if they do not help to handle the customer's request, or are not consistent with the steps in the interaction that precede them or the policy for handling customer requests.

<policy>
{policy}
</policy>

<tools>
{tool_definitions}
</tools>

- The representative can transfer the customer to another agent.  This should be done if the customer's request cannot be handled by the representative according to the policy, but should not be done if the representative can handle the request under the policy.
- In this interaction, the representative should {transfer_instruction}transfer the customer to another agent.
- The actions of the representative should be considered a failure if the representative transfers the customer to another agent when they should not transfer the customer, or if the representative does not transfer the customer to another agent when they should transfer the customer.

Please output the evaluation of the actions taken by the customer service representative and an explanation for the evaluation using the following JSON schema:
{evaluation_schema}`;

/** One judge of customer, representative and tool results at once (complete_trajectory_combined_evaluation). */
export const COMBINED_JUDGE_SYSTEM = `# Instructions
- Your task is to evaluate an interaction between a customer and a customer service representative.
- Please evaluate separately the actions of the customer, the actions of the representative, and the tool results in the interaction.
- The steps in the interaction are shown in order between the <steps> and </steps> tags.
- Each step in the interaction is either a message from the customer to the representative, a message from the representative to the customer, the execution of a tool, or the result of executing a tool.
- A message from the customer to the representative or from the representative to the customer is shown between <message> and </message> tags.
- An execution of a tool can be requested by the representative, and is shown between <execute_tool> and </execute_tool> tags.
- When the representative requests the execution of a tool, the next step in the interaction should be the result of executing the tool, which is shown between <tool_result> and </tool_result> tags.
- The way that the representative handles customer requests is described below between the <policy> and </policy> tags.
- The definitions of the tools that are available to the representative for execution are provided below between the <tools> and </tools> tags, with each tool definition appearing between <tool> and </tool> tags.
- The scenario that describes the customer and the tasks they are trying to complete is shown below between the <scenario> and </scenario> tags.

<policy>
{policy}
</policy>

<tools>
{tool_definitions}
</tools>

<scenario>
{customer_scenario}
</scenario>

- The goal of the customer is to complete the tasks described in the scenario by communicating with the representative, while maintaining consistency with the information about the customer in the scenario.
- The actions of the customer should be considered a success if they follow naturally from the interaction with the representative and are consistent with the scenario.
- The actions of the customer should be considered a failure if they do not advance the interaction or are not consistent with the scenario.
- The customer should send the message '{complete_indicator}' to end the interaction with the representative when their tasks have been completed.
- The customer should send the message '{transfer_indicator}' when they have been transferred to another agent by the representative.
- The actions of the customer should be considered a failure if the customer ends the interaction when their tasks have not yet been completed, or sends the message '{transfer_indicator}' when they have not yet been transferred to another agent by the representative.
- Whenever the representative takes an action, the representative can either send a message to the customer, or execute a tool.
- The actions of the representative should be considered a success if they are helpful in addressing the request from the customer.
- The actions of the representative should be considered a failure if they do not help to handle the customer's request, or are not consistent with the steps in the interaction that precede them or the policy for handling customer requests.
- The representative can transfer the customer to another agent.  This should be done if the customer's request cannot be handled by the representative according to the policy, but should not be done if the representative can handle the request under the policy.
- In this interaction, the representative should {transfer_instruction}transfer the customer to another agent.
- The actions of the representative should be considered a failure if the representative transfers the customer to another agent when they should not transfer the customer, or if the representative does not transfer the customer to another agent when they should transfer the customer.
- When the representative executes a tool, the tool execution step should specify the tool to be executed and the arguments for execution, and the next step should be the result of executing the tool.
- The tool results in the interaction should be considered a success if they conform to the definitions of the tools being executed, and are consistent with the arguments for execution, the information about the customer in the scenario, the interaction between the customer and the representative, and each other.
- The tool results in the interaction should be considered a failure if they are not consistent with the definitions of the tools being executed, the arguments for execution, the information about the customer in the scenario, the interaction between the customer and the representative, or each other.

Please output the evaluation of the actions taken by the customer, the evaluation of the actions taken by the customer service representative, the evaluation of the tool results in the interaction, and explanations for the evaluations using the following JSON schema:
{evaluation_schema}`;

/** A message judge's user message: {previous_steps}, {current_step}. */
export const MESSAGE_JUDGE_USER = `<previous_steps>
{previous_steps}
</previous_steps>

<current_step>
{current_step}
</current_step>`;

/** A conversation judge's user message: {steps}. */
export const CONVERSATION_JUDGE_USER = `<steps>
{steps}
</steps>`;

/** A text message as a judge sees it: {sender}, {content}. */
export const TEXT_STEP = `<message>
Sender: {sender}
Content: {content}
</message>`;

/** A tool call as a judge sees it: {execution_id}, {tool_name}, {arguments}. */
export const TOOL_CALL_STEP = `<execute_tool>
Execution ID: {execution_id}
Tool name: {tool_name}
Arguments for execution: {arguments}
</execute_tool>`;

/** A tool result as a judge sees it: {execution_id}, {execution_result}. */
export const TOOL_RESULT_STEP = `<tool_result>
Execution ID: {execution_id}
Execution result: {execution_result}
</tool_result>`;

/** One tool as simulators and judges see it: {name}, {documentation}, {parameters}, {return_type}. */
export const TOOL_DEFINITION = `<tool>
Name: {name}
Documentation: {documentation}
Parameters in JSON Schema format: {parameters}
Return type in JSON Schema format: {return_type}
</tool>`;
