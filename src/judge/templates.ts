// Judge prompt templates from config, as NeMo Gym's judged servers take them: a path (a text file,
// or a YAML file with the prompt under a key such as `user`), or the text inline. NeMo Gym opens a
// relative path from the server's own folder; Gymkit environments ship a copy of each prompt file
// they reference by default, so a relative path is read from the working directory when the file is
// there (a NeMo Gym checkout, the user's own prompt) and from the environment's bundled copy
// otherwise. Templates are Python str.format templates (verifiers/text/py_format.ts).
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, normalize, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { UserError } from "../config/user_error.js";
import { FormatTemplateError, parseFormatTemplate, pyFormat, type FormatPiece } from "../protocol/python_format.js";

export class PromptTemplateError extends UserError {}

/** Bundled prompt files of an environment, by the relative path its config names them with. */
export type BundledPrompts = Readonly<Record<string, string>>;

export interface PromptSource {
  /** The config key the path came from, for messages (e.g. `judge_prompt_template_fpath`). */
  key: string;
  /** The environment's copies of its default prompt files. */
  bundled?: BundledPrompts;
  /** Also look in these folders for a relative path (e.g. a NeMo Gym server folder). */
  searchDirs?: readonly string[];
}

/** The text of a prompt file named by config. Throws PromptTemplateError naming the key and where it looked. */
export function readPromptFile(path: string, source: PromptSource): string {
  const tried: string[] = [];
  const candidates = isAbsolute(path) ? [path] : [resolve(path), ...(source.searchDirs ?? []).map((dir) => resolve(dir, path))];
  for (const candidate of candidates) {
    tried.push(candidate);
    if (existsSync(candidate)) return readFileSync(candidate, "utf8");
  }
  const bundled = source.bundled?.[normalize(path).replace(/^\.\//, "")];
  if (bundled !== undefined) return bundled;
  const shipped = Object.keys(source.bundled ?? {});
  throw new PromptTemplateError(
    `\`${source.key}\`: no prompt file ${JSON.stringify(path)} (looked at ${tried.join(", ")})` +
      (shipped.length ? `; the environment ships ${shipped.map((p) => JSON.stringify(p)).join(", ")}` : ""),
  );
}

/** A YAML prompt file's top-level mapping (empty when the file holds no mapping). */
export function readPromptYamlMapping(path: string, source: PromptSource): Record<string, unknown> {
  const text = readPromptFile(path, source);
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (error) {
    throw new PromptTemplateError(`\`${source.key}\` (${path}): not valid YAML: ${(error as Error).message.split("\n")[0]}`);
  }
  return data !== null && typeof data === "object" && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
}

/** A YAML prompt file's value under `field` (e.g. simpleqa's `prompts/judge.yaml` → `user`). */
export function readPromptYaml(path: string, field: string, source: PromptSource): string {
  const value = readPromptYamlMapping(path, source)[field];
  if (typeof value !== "string") throw new PromptTemplateError(`\`${source.key}\` (${path}): the file has no \`${field}\` template string`);
  return value;
}

/** A template checked once, filled per rollout. */
export class PromptTemplate {
  private readonly pieces: FormatPiece[];

  constructor(
    readonly text: string,
    private readonly where: string,
  ) {
    try {
      this.pieces = parseFormatTemplate(text);
    } catch (error) {
      if (error instanceof FormatTemplateError) throw new PromptTemplateError(`${where}: ${error.message}`);
      throw error;
    }
  }

  /** The field names the template uses. */
  get fields(): string[] {
    return this.pieces.flatMap((piece) => ("field" in piece ? [piece.field] : []));
  }

  fill(values: Record<string, unknown>): string {
    try {
      return pyFormat(this.pieces, values);
    } catch (error) {
      if (error instanceof FormatTemplateError) throw new PromptTemplateError(`${this.where}: ${error.message}`);
      throw error;
    }
  }
}
