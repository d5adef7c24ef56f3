// Reading and writing JSONL. Input is read lazily line by line; every parse error names the file
// and the 1-based line so a user can jump straight to it.
import { jsonDepthBeyond, tooDeepMessage } from "../protocol/index.js";
import { checkReadableFile } from "../config/file_errors.js";
import { scanLines } from "./line_scan.js";
import { UserError } from "../config/user_error.js";

export class JsonlError extends UserError {
  constructor(
    readonly file: string,
    readonly line: number,
    message: string,
  ) {
    super(`${file}:${line}: ${message}`);
  }
}

export interface JsonlLine {
  /** 1-based line number in the file. */
  line: number;
  /** The raw text of the line (trimmed of the newline). */
  text: string;
  value: Record<string, unknown>;
}

/** Yields each non-blank line parsed as a JSON object; throws JsonlError on the first bad line. */
export async function* readJsonl(file: string): AsyncGenerator<JsonlLine> {
  checkReadableFile(file);
  for (const scanned of scanLines(file)) {
    const text = scanned.text.trim();
    // Parsing would succeed, but every recursive walk after it (validation, copying) would overflow.
    if (jsonDepthBeyond(text) !== undefined) throw new JsonlError(file, scanned.line, tooDeepMessage());
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new JsonlError(file, scanned.line, `not valid JSON (${(error as Error).message}): ${text.slice(0, 120)}`);
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      throw new JsonlError(file, scanned.line, `expected a JSON object per line, got ${Array.isArray(value) ? "an array" : typeof value}`);
    }
    yield { line: scanned.line, text, value: value as Record<string, unknown> };
  }
}
