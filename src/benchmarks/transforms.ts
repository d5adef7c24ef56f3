// How a source row becomes a prepared row, per benchmark: the field mappings of NeMo Gym 07d6b0d's
// benchmarks/<name>/prepare.py restated in TypeScript (no Python needed). A spec either maps fields
// with `{field}` templates (Python str.format rules) or names one of the transforms below.
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { pyFormat } from "../protocol/python_format.js";
import { PythonRandom } from "../verifiers/random/python_random.js";
import { unpickleString } from "./pickle.js";

// zlib is required by the one transform that inflates, not by every `gym eval run` that loads this
// module to resolve benchmark configs (issue 23, start-up).
const require = createRequire(import.meta.url);

export type Row = Record<string, unknown>;

/** Turns the `index`-th source row into a prepared row, or undefined to drop it; throws Error naming the problem. */
export type RowTransform = (row: Row, index: number) => Row | undefined;

export interface TransformSpec {
  name: string;
  [option: string]: unknown;
}

export const TRANSFORMS = ["gsm8k", "hendrycks_math", "gpqa", "ifeval", "ifbench", "livecodebench"] as const;

function field(row: Row, name: string): unknown {
  if (!Object.hasOwn(row, name)) throw new Error(`the source row has no \`${name}\` field (it has: ${Object.keys(row).join(", ") || "none"})`);
  return row[name];
}

function text(row: Row, name: string): string {
  const value = field(row, name);
  if (typeof value !== "string") throw new Error(`\`${name}\` must be a string, got ${JSON.stringify(value)}`);
  return value;
}

/** `{out: "{template}"}`: each output field a Python-format template over the source row. */
export function fieldsTransform(fields: Readonly<Record<string, string>>): RowTransform {
  return (row) => Object.fromEntries(Object.entries(fields).map(([out, template]) => [out, pyFormat(template, row)]));
}

export function namedTransform(spec: TransformSpec): RowTransform {
  switch (spec.name) {
    case "gsm8k":
      return gsm8k(spec);
    case "hendrycks_math":
      return hendrycksMath;
    case "gpqa":
      return gpqa;
    case "ifeval":
      return ifeval;
    case "ifbench":
      return ifbench;
    case "livecodebench":
      return livecodebench(spec);
    default:
      throw new Error(`unknown transform \`${spec.name}\`; known: ${TRANSFORMS.join(", ")}`);
  }
}

// `float(x.replace(",", ""))`, kept an int when it is one.
function gsm8k(spec: TransformSpec): RowTransform {
  const fixes = new Map<string, unknown>();
  for (const fix of (spec.answer_fixes as Array<{ question: string; expected_answer: unknown }> | undefined) ?? []) fixes.set(fix.question, fix.expected_answer);
  return (row) => {
    const question = text(row, "question");
    const parts = text(row, "answer").split("####");
    if (parts.length !== 2) throw new Error(`\`answer\` must hold exactly one "####" before the final answer, found ${parts.length - 1}`);
    const number = Number(parts[1]!.replaceAll(",", "").trim());
    if (parts[1]!.trim() === "" || Number.isNaN(number)) throw new Error(`the final answer after "####" is not a number: ${JSON.stringify(parts[1])}`);
    return {
      question,
      expected_answer: fixes.has(question) ? fixes.get(question) : number,
      reference_solution: parts[0]!.replace(/<<.*?>>/g, ""),
    };
  };
}

// Every field kept: answer → expected_answer, question → problem when there is no problem, then problem → question.
function hendrycksMath(source: Row): Row {
  const row: Row = { ...source };
  if (Object.hasOwn(row, "answer")) {
    const answer = row.answer;
    delete row.answer;
    row.expected_answer = answer;
  }
  if (!Object.hasOwn(row, "problem")) {
    const question = field(row, "question");
    delete row.question;
    row.problem = question;
  }
  const problem = row.problem;
  delete row.problem;
  row.question = problem;
  return row;
}

const LETTERS = ["A", "B", "C", "D"];

/** uuid5 (RFC 4122, SHA-1) of `name` in the URL namespace, as Python's `uuid.uuid5(uuid.NAMESPACE_URL, name)`. */
export function uuid5Url(name: string): string {
  const namespace = Buffer.from("6ba7b8119dad11d180b400c04fd430c8", "hex");
  const hash = createHash("sha1").update(namespace).update(name, "utf8").digest().subarray(0, 16);
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Python's `random.Random(int(md5(text).hexdigest(), 16)).shuffle(items)`. */
export function md5SeededShuffle<T>(seedText: string, items: T[]): T[] {
  const digest = createHash("md5").update(seedText, "utf8").digest();
  // The 128-bit integer's 32-bit words, least significant first (the digest is big-endian).
  const words = [digest.readUInt32BE(12), digest.readUInt32BE(8), digest.readUInt32BE(4), digest.readUInt32BE(0)];
  const random = new PythonRandom();
  random.seedWords(words);
  random.shuffle(items);
  return items;
}

function gpqa(row: Row): Row {
  const question = text(row, "Question");
  const correct = text(row, "Correct Answer");
  const choices = md5SeededShuffle(question, [correct, text(row, "Incorrect Answer 1"), text(row, "Incorrect Answer 2"), text(row, "Incorrect Answer 3")]);
  const optionsText = choices.map((choice, i) => `${LETTERS[i]}: ${choice}`).join("\n");
  return {
    question,
    options_text: optionsText,
    problem: `${question}\n${optionsText}`,
    options: choices.map((choice, i) => ({ [LETTERS[i]!]: choice })),
    expected_answer: LETTERS[choices.indexOf(correct)],
    uuid: uuid5Url(question),
  };
}

function ifeval(row: Row, index: number): Row {
  const prompt = text(row, "prompt");
  return {
    id: index,
    responses_create_params: { input: [{ role: "user", content: prompt }], tools: [], parallel_tool_calls: false },
    verifier_metadata: { prompt, instruction_id_list: field(row, "instruction_id_list"), kwargs: field(row, "kwargs"), grading_mode: "binary" },
  };
}

function ifbench(row: Row, index: number): Row {
  return { id: index, instruction_id_list: field(row, "instruction_id_list"), prompt: text(row, "prompt"), kwargs: field(row, "kwargs"), grading_mode: "fraction" };
}

const WITH_STARTER = "You will use the following starter code to write the solution to the problem and enclose your code within delimiters.";
const WITHOUT_STARTER =
  "Read the inputs from stdin solve the problem and write the answer to stdout (do not directly test on the sample inputs). Enclose your code within delimiters as follows. Ensure that when the python program runs, it reads the inputs, runs the algorithm and writes output to STDOUT.";

/** Public tests are JSON; private ones JSON inside base64(zlib(pickle(str))). */
export function decodeTestCases(raw: unknown): Array<{ input: unknown; output: unknown }> {
  if (raw === undefined || raw === null || raw === "") return [];
  if (typeof raw !== "string") throw new Error(`test cases must be a string, got ${typeof raw}`);
  try {
    return JSON.parse(raw) as Array<{ input: unknown; output: unknown }>;
  } catch {
    const { inflateSync } = require("node:zlib") as typeof import("node:zlib");
    return JSON.parse(unpickleString(inflateSync(Buffer.from(raw, "base64")))) as Array<{ input: unknown; output: unknown }>;
  }
}

function livecodebench(spec: TransformSpec): RowTransform {
  const from = typeof spec.date_from === "string" ? spec.date_from : undefined;
  const to = typeof spec.date_to === "string" ? spec.date_to : undefined;
  return (row) => {
    const date = typeof row.contest_date === "string" ? row.contest_date : "";
    if (from !== undefined && date < from) return undefined;
    if (to !== undefined && date >= to) return undefined;
    const tests = [...decodeTestCases(row.public_test_cases), ...decodeTestCases(row.private_test_cases)];
    let meta: unknown = row.metadata ?? {};
    if (typeof meta === "string") meta = meta === "" ? {} : JSON.parse(meta);
    const fnName = (meta as Record<string, unknown>).func_name;
    const starter = typeof row.starter_code === "string" ? row.starter_code : "";
    return {
      question_content: field(row, "question_content"),
      verifier_metadata: {
        problem_id: row.question_id ?? "",
        difficulty: row.difficulty ?? "unknown",
        unit_tests: { inputs: tests.map((t) => t.input), outputs: tests.map((t) => t.output), fn_name: fnName ? fnName : null },
      },
      formatting_message: starter ? WITH_STARTER : WITHOUT_STARTER,
      starter_code: starter ? `\`\`\`python\n${starter}\n\`\`\`` : "```python\n# YOUR CODE HERE\n```",
    };
  };
}
