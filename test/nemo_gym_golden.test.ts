// The golden comparison: for each NeMo Gym example environment, `gym eval run` against the same
// engine behaviour NeMo Gym's own run had (see test/fixtures/nemo_gym_golden/README.md) must write a
// rollout file and a metrics file identical in shape to NeMo Gym's — every nested key path, every JSON
// type at it — with the same rewards and the same metric values. Gymkit may add keys only where the
// README lists them as extensions (GYMKIT_EXTENSIONS below).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeEngine, type FakeEngine } from "./doubles/fake_engine.js";
import { REPO_ROOT, runGym } from "./helpers/cli.js";

const GOLDEN = join(REPO_ROOT, "test", "fixtures", "nemo_gym_golden");
const ENVIRONMENTS = ["example_single_tool_call", "example_multi_step", "example_session_state_mgmt", "example_tool_call_multireward"];

/** Paths Gymkit writes beyond NeMo Gym's (README, "Identical files"): the agent_ref's server type. */
const GYMKIT_EXTENSIONS = { rollouts: ["agent_ref.type"], metrics: ["[].agent_ref.type"] };

// ---- the engine NeMo Gym's fixtures were made with, replayed through the engine double ----
let sequence = 0;
const nextId = (prefix: string) => `${prefix}_${(++sequence).toString(16).padStart(12, "0")}`;

interface Tool {
  type?: string;
  name?: string;
  parameters?: { properties?: Record<string, unknown> };
}

function reply(body: Record<string, any>): Record<string, unknown> {
  const input: Array<Record<string, unknown>> = Array.isArray(body.input) ? body.input : [{ role: "user", content: String(body.input ?? "") }];
  const tools = ((body.tools ?? []) as Tool[]).filter((t) => t?.type === "function" && typeof t.name === "string");
  const toolResultSeen = input.some((item) => item?.type === "function_call_output");
  const tool = toolResultSeen ? undefined : (tools.find((t) => t.name === "get_weather") ?? tools[0]);
  const output = tool
    ? [{ type: "function_call", id: nextId("fc"), call_id: nextId("call"), name: tool.name, arguments: tool.parameters?.properties && "city" in tool.parameters.properties ? '{"city":"San Francisco"}' : "{}", status: "completed" }]
    : [{ type: "message", id: nextId("msg"), role: "assistant", status: "completed", content: [{ type: "output_text", text: "The weather in San Francisco is cold. Bring a jacket.", annotations: [] }] }];
  const inputTokens = 20 + 10 * input.length;
  return {
    id: nextId("resp"),
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "completed",
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    metadata: {},
    model: body.model ?? "fake",
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    temperature: body.temperature ?? 1.0,
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1.0,
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: 12,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + 12,
    },
  };
}

// ---- shapes: every path (`a.b`, list elements as `a[]`) with the JSON types seen there ----
type Shape = Map<string, Set<string>>;

/**
 * A JSON value's type as Python sees it once parsed: `1.0` is a float, `1` an int. Read from the
 * text, since JSON.parse forgets the difference.
 */
function typeOf(value: unknown, floats: Set<string>, path: string): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "list";
  if (typeof value === "number") return floats.has(path) ? "float" : Number.isInteger(value) ? "int" : "float";
  if (typeof value === "object") return "object";
  return typeof value === "boolean" ? "bool" : "str";
}

/** Parses one JSON text, noting the paths of numbers written with a fraction or exponent (Python floats). */
function parseTyped(text: string): { value: unknown; floatPaths: Set<string> } {
  const floatPaths = new Set<string>();
  let at = 0;
  const space = () => {
    while (/\s/.test(text[at] ?? "")) at++;
  };
  const parse = (path: string): unknown => {
    space();
    const c = text[at];
    if (c === "{") {
      at++;
      const out: Record<string, unknown> = {};
      space();
      if (text[at] === "}") return at++, out;
      for (;;) {
        space();
        const key = parse("") as string;
        space();
        at++; // ':'
        out[key] = parse(path ? `${path}.${key}` : key);
        space();
        if (text[at++] === "}") return out;
      }
    }
    if (c === "[") {
      at++;
      const out: unknown[] = [];
      space();
      if (text[at] === "]") return at++, out;
      for (;;) {
        out.push(parse(`${path}[]`));
        space();
        if (text[at++] === "]") return out;
      }
    }
    if (c === '"') {
      let end = at + 1;
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      const s = JSON.parse(text.slice(at, end + 1)) as string;
      at = end + 1;
      return s;
    }
    const literal = /^(?:-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null)/.exec(text.slice(at))![0];
    at += literal.length;
    if (/[.eE]/.test(literal) && /\d/.test(literal)) floatPaths.add(path);
    return JSON.parse(literal);
  };
  return { value: parse(""), floatPaths };
}

function addShape(shape: Shape, value: unknown, path: string, floats: Set<string>): void {
  const key = path || "$";
  if (!shape.has(key)) shape.set(key, new Set());
  shape.get(key)!.add(typeOf(value, floats, path));
  if (Array.isArray(value)) for (const v of value) addShape(shape, v, `${path}[]`, floats);
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) addShape(shape, v, path ? `${path}.${k}` : k, floats);
}

function shapeOfLines(text: string): { shape: Shape; rows: Array<Record<string, any>> } {
  const shape: Shape = new Map();
  const rows: Array<Record<string, any>> = [];
  for (const line of text.split("\n").filter((l) => l.trim())) {
    const { value, floatPaths } = parseTyped(line);
    addShape(shape, value, "", floatPaths);
    rows.push(value as Record<string, any>);
  }
  return { shape, rows };
}

function shapeOfDocument(text: string): { shape: Shape; value: unknown } {
  const shape: Shape = new Map();
  const { value, floatPaths } = parseTyped(text);
  addShape(shape, value, "", floatPaths);
  return { shape, value };
}

/** NeMo Gym's paths all in Gymkit's, Gymkit's beyond them exactly its listed extensions, the same types at each. */
function expectSameShape(nemoGym: Shape, gymkit: Shape, extensions: string[]): void {
  const types = (shape: Shape, path: string) => [...shape.get(path)!].sort().join("|");
  expect([...nemoGym.keys()].filter((p) => !gymkit.has(p)).sort(), "paths NeMo Gym writes and Gymkit does not").toEqual([]);
  expect([...gymkit.keys()].filter((p) => !nemoGym.has(p)).sort(), "paths Gymkit writes beyond its listed extensions").toEqual(extensions);
  const differing = [...nemoGym.keys()].filter((p) => gymkit.has(p) && types(nemoGym, p) !== types(gymkit, p));
  expect(differing.map((p) => `${p}: NeMo Gym ${types(nemoGym, p)}, Gymkit ${types(gymkit, p)}`), "paths whose JSON types differ").toEqual([]);
}

/** Every numeric leaf of a metrics document, by its path with list positions. */
function numbersOf(value: unknown, path = "", out = new Map<string, number>()): Map<string, number> {
  if (typeof value === "number") out.set(path, value);
  else if (Array.isArray(value)) value.forEach((v, i) => numbersOf(v, `${path}[${i}]`, out));
  else if (value && typeof value === "object") for (const [k, v] of Object.entries(value)) numbersOf(v, path ? `${path}.${k}` : k, out);
  return out;
}

let engine: FakeEngine;
let dir: string;

beforeAll(async () => {
  engine = await startFakeEngine({ respond: (path, body) => (path.endsWith("/responses") ? { status: 200, body: reply(body) } : undefined) });
  dir = mkdtempSync(join(tmpdir(), "gym-golden-"));
});

afterAll(async () => {
  await engine?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each(ENVIRONMENTS)("%s: Gymkit's files against NeMo Gym's", (environment) => {
  let gymkit: { rollouts: string; metrics: string };
  const nemoGym = {
    rollouts: readFileSync(join(GOLDEN, `${environment}_rollouts.jsonl`), "utf8"),
    metrics: readFileSync(join(GOLDEN, `${environment}_rollouts_aggregate_metrics.json`), "utf8"),
  };

  beforeAll(async () => {
    const output = join(dir, `${environment}.jsonl`);
    const input = join(REPO_ROOT, "src", "environments", environment, "data", "example.jsonl");
    const result = await runGym(
      ["eval", "run", "--resources-server", environment, "--model-type", "openai_model", "--model-url", engine.baseUrl, "--model", "fake", "--model-api-key", "dummy", "-i", input, "-o", output, "--num-repeats", "2", "--concurrency", "4"],
      { timeoutMs: 180_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    gymkit = { rollouts: readFileSync(output, "utf8"), metrics: readFileSync(join(dir, `${environment}_aggregate_metrics.json`), "utf8") };
  }, 200_000);

  it("rollout lines: the same key paths and JSON types (extensions aside), the same rewards", () => {
    const theirs = shapeOfLines(nemoGym.rollouts);
    const ours = shapeOfLines(gymkit.rollouts);
    expectSameShape(theirs.shape, ours.shape, GYMKIT_EXTENSIONS.rollouts);
    const rewardOf = (rows: Array<Record<string, any>>) => new Map(rows.map((r) => [`${r._ng_task_index}:${r._ng_rollout_index}`, r.reward]));
    expect(ours.rows).toHaveLength(theirs.rows.length);
    expect(rewardOf(ours.rows)).toEqual(rewardOf(theirs.rows));
  });

  it("metrics file: the same key paths and JSON types (extensions aside), and every value equal", () => {
    const theirs = shapeOfDocument(nemoGym.metrics);
    const ours = shapeOfDocument(gymkit.metrics);
    expectSameShape(theirs.shape, ours.shape, GYMKIT_EXTENSIONS.metrics);
    const theirNumbers = numbersOf(theirs.value);
    const ourNumbers = numbersOf(ours.value);
    expect([...ourNumbers.keys()].sort()).toEqual([...theirNumbers.keys()].sort());
    for (const [path, value] of theirNumbers) expect(ourNumbers.get(path), path).toBeCloseTo(value, 9);
  });
});
