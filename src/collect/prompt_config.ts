// Prompt configs: a YAML file with a `user` template (and an optional `system` one) that builds each
// input row's `responses_create_params.input` from the row's own fields at plan time, so one prepared
// dataset can be run with different prompts. Templates use Python's str.format_map syntax as NeMo Gym
// does (`{field}`, literal braces doubled); a row that already has an input is an error, not overwritten.
// Behaviour reproduced from NeMo Gym 07d6b0d, nemo_gym/prompt.py.
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { JsonlError, type JsonlLine } from "./jsonl.js";
import { UserError } from "../config/user_error.js";

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

type Piece = { text: string } | { field: string };

/** Splits a str.format template into text and `{field}` pieces; only plain field names are supported. */
function parseTemplate(template: string, where: string): Piece[] {
  const pieces: Piece[] = [];
  let text = "";
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c === "{" && template[i + 1] === "{") {
      text += "{";
      i++;
    } else if (c === "}" && template[i + 1] === "}") {
      text += "}";
      i++;
    } else if (c === "{") {
      const end = template.indexOf("}", i);
      if (end === -1) throw new PromptConfigError(`prompt config ${where}: a \`{\` at character ${i + 1} is never closed (write \`{{\` for a literal brace)`);
      const field = template.slice(i + 1, end);
      if (!/^[A-Za-z_]\w*$/.test(field)) {
        throw new PromptConfigError(`prompt config ${where}: \`{${field}}\` is not supported; placeholders are plain row field names like \`{question}\` (write \`{{\` and \`}}\` for literal braces)`);
      }
      if (text) pieces.push({ text });
      text = "";
      pieces.push({ field });
      i = end;
    } else if (c === "}") {
      throw new PromptConfigError(`prompt config ${where}: a single \`}\` at character ${i + 1} (write \`}}\` for a literal brace)`);
    } else {
      text += c;
    }
  }
  if (text) pieces.push({ text });
  return pieces;
}

/** A JSON value as Python's str() shows it, which is what NeMo Gym's templates produce. */
function pythonStr(value: unknown): string {
  return typeof value === "string" ? value : pythonRepr(value);
}

function pythonRepr(value: unknown): string {
  if (value === null || value === undefined) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (typeof value === "number") return String(value);
  if (typeof value === "string") {
    const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
    const escaped = value.replaceAll("\\", "\\\\").replaceAll("\n", "\\n").replaceAll("\t", "\\t").replaceAll("\r", "\\r");
    return `${quote}${quote === "'" ? escaped.replaceAll("'", "\\'") : escaped}${quote}`;
  }
  if (Array.isArray(value)) return `[${value.map(pythonRepr).join(", ")}]`;
  return `{${Object.entries(value as Record<string, unknown>).map(([k, v]) => `${pythonRepr(k)}: ${pythonRepr(v)}`).join(", ")}}`;
}

function fill(template: string, row: Record<string, unknown>, where: string): string {
  return parseTemplate(template, where)
    .map((piece) => {
      if ("text" in piece) return piece.text;
      if (!Object.hasOwn(row, piece.field)) {
        throw new Error(`its template references the field \`${piece.field}\`, but the row only has fields: ${Object.keys(row).join(", ") || "(none)"}`);
      }
      return pythonStr(row[piece.field]);
    })
    .join("");
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
