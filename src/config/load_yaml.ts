// Reads one config file. A syntax error names the file, line and column; a file that is not a
// mapping at the top says so, because every config source is merged key by key.
import { readFileSync } from "node:fs";
import { parseDocument } from "yaml";
import { fileErrorFrom, isFsError, unreadableReason } from "./file_errors.js";
import { ConfigError } from "./errors.js";
import { isMapping, type Mapping } from "./tree.js";

/** Parses YAML `text` (from `label`, for messages) into a top-level mapping; empty text is `{}`. */
export function parseConfigYaml(text: string, label: string): Mapping {
  // `merge: true` accepts `<<: *anchor`, which OmegaConf (NeMo Gym's loader) accepts too.
  const doc = parseDocument(text, { merge: true, prettyErrors: true });
  const first = doc.errors[0];
  if (first) {
    const at = first.linePos?.[0];
    const where = at ? ` at line ${at.line}, column ${at.col}` : "";
    // The yaml package appends its own position and a code excerpt; we state the position once.
    const reason = (first.message.split("\n")[0] ?? first.message).replace(/ at line \d+, column \d+:?\s*$/, "");
    throw new ConfigError(`Could not parse YAML in ${label}${where}: ${reason}`);
  }
  const data: unknown = doc.toJS();
  if (data === null || data === undefined) return {};
  if (!isMapping(data)) {
    const kind = Array.isArray(data) ? "a list" : `a ${typeof data}`;
    throw new ConfigError(`${label} must hold a mapping of keys at the top level, but it holds ${kind}.`);
  }
  return data;
}

/** Reads and parses the config file at `path`; `label` is how messages name it. */
export function readConfigFile(path: string, label: string): Mapping {
  // Checked before reading: a FIFO would block the read forever, and errno texts mean little to a user.
  const problem = unreadableReason(path);
  if (problem !== undefined) throw new ConfigError(`Could not read config file ${label}: ${problem}.`);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (isFsError(error)) throw new ConfigError(`Could not read config file ${label}: ${fileErrorFrom(error, "read", label).message}.`);
    throw error;
  }
  return parseConfigYaml(text, label);
}
