// Token-level rollouts: tokenizers and chat templates (matching Python transformers), raw-completion
// parsing, on-policy prefix correction, and the trainer export. See README.md beside this file.
export { loadTokenizer, HfTokenizer, type ChatTokenizer, type TextTokenizer } from "./tokenizer.js";
export { renderChatTemplate, type RenderOptions } from "./chat_template.js";
export { parseCompletion, parseHermesToolCalls, templateToolCallFormat, resolveToolCallFormat, TOOL_CALL_FORMATS, type ParsedCompletion, type ToolCallFormat } from "./parse_completion.js";
export { parseToolCalls, type ParsedToolCall } from "./tool_parsers.js";
export { callTokensOf, idsSoFar, onPolicyPromptIds, firstDivergence, NonContiguousError, type CallTokens } from "./prefix.js";
export { turnFormatOf, type TurnFormat } from "./turns.js";
export { flattenRollout, exportTokens, NoTokensError, type TokenRollout } from "./export.js";
export { pythonJsonDumps } from "./python_json.js";
