// Prompt configs: a YAML file with a `user` template (and an optional `system` one) that builds each
// input row's `responses_create_params.input` from the row's own fields at plan time, so one prepared
// dataset can be run with different prompts. Templates use Python's str.format_map syntax as NeMo Gym
// does (`{field}`, literal braces doubled); a row that already has an input is an error, not overwritten.
// Behaviour reproduced from NeMo Gym 07d6b0d, nemo_gym/prompt.py.
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { JsonlError, type JsonlLine } from "./jsonl.js";
import { UserError } from "../config/user_error.js";
import { FormatTemplateError, parseFormatTemplate, pyFormat, type FormatPiece } from "../protocol/python_format.js";

export interface PromptConfig {
  /** The file it was read from, for messages. */
  path: string;
  user: string;
  system?: string;
}

export class PromptConfigError extends UserError {}

/** Reads and checks a prompt YAML; throws PromptConfigError naming the file and the problem. */
export function loadPromptConfig(path: string): PromptConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new PromptConfigError(`prompt config ${path}: ${code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory, not a YAML file" : (error as Error).message}`);
  }
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (error) {
    throw new PromptConfigError(`prompt config ${path}: not valid YAML: ${(error as Error).message.split("\n")[0]}`);
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) throw new PromptConfigError(`prompt config ${path}: must be a mapping with \`user\` (and optionally \`system\`) templates`);
  const { user, system, ...rest } = data as Record<string, unknown>;
  const unknown = Object.keys(rest);
  if (unknown.length > 0) throw new PromptConfigError(`prompt config ${path}: unknown key(s) ${unknown.map((k) => `\`${k}\``).join(", ")}; a prompt config has \`user\` and optionally \`system\``);
  if (typeof user !== "string") throw new PromptConfigError(`prompt config ${path}: \`user\` must be a template string${user === undefined ? " and is missing" : ""}`);
  if (system !== undefined && system !== null && typeof system !== "string") throw new PromptConfigError(`prompt config ${path}: \`system\` must be a template string`);
  // Fail on a malformed template now, not on the first row.
  for (const [name, template] of [["user", user], ["system", system]] as const) if (typeof template === "string") parseTemplate(template, `${path} \`${name}\``);
  return { path, user, ...(typeof system === "string" ? { system } : {}) };
}

/** Parses a template, reporting a malformed one as a PromptConfigError naming where it is. */
function parseTemplate(template: string, where: string): FormatPiece[] {
  try {
    return parseFormatTemplate(template);
  } catch (error) {
    if (error instanceof FormatTemplateError) throw new PromptConfigError(`prompt config ${where}: ${error.message}`);
    throw error;
  }
}

function fill(template: string, row: Record<string, unknown>, where: string): string {
  const pieces = parseTemplate(template, where);
  for (const piece of pieces) {
    if ("field" in piece && !Object.hasOwn(row, piece.field)) {
      throw new Error(`its template references the field \`${piece.field}\`, but the row only has fields: ${Object.keys(row).join(", ") || "(none)"}`);
    }
  }
  return pyFormat(pieces, row);
}

/**
 * The row with `responses_create_params.input` built from the templates (its other parameters
 * kept). Throws JsonlError naming the input line when the row already has an input or lacks a field.
 */
export function applyPrompt(prompt: PromptConfig, line: JsonlLine, file: string): Record<string, unknown> {
  const row = line.value;
  const params = row.responses_create_params;
  const existing = params !== null && typeof params === "object" && !Array.isArray(params) ? (params as Record<string, unknown>) : {};
  const input = existing.input;
  if (input !== undefined && input !== null && input !== "" && !(Array.isArray(input) && input.length === 0)) {
    throw new JsonlError(file, line.line, `row already has responses_create_params.input, and a prompt config (${prompt.path}) would replace it; use one or the other`);
  }
  const messages: Array<{ role: "system" | "user"; content: string }> = [];
  try {
    if (prompt.system !== undefined) messages.push({ role: "system", content: fill(prompt.system, row, `${prompt.path} \`system\``) });
    messages.push({ role: "user", content: fill(prompt.user, row, `${prompt.path} \`user\``) });
  } catch (error) {
    throw new JsonlError(file, line.line, `prompt config ${prompt.path}: ${(error as Error).message}`);
  }
  return { ...row, responses_create_params: { ...existing, input: messages } };
}
