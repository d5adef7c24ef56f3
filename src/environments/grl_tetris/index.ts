// grl_tetris: NeMo Gym's Tetris environment (NVIDIA-NeMo/Gym 07d6b0d resources_servers/grl_tetris/app.py
// and tetris_env/), Gymnasium-style, played by gymnasium_agent. `reset` starts a game from the row's
// `seed` (and its `box_type`, `dim_x`, `dim_y`, `action_lookup` overrides) and answers the board;
// each `step` applies every <action>Left|Right|Down</action> tag of the model's reply in order (−0.1
// per move, +10 per cleared line), ending the episode when a line clears or the stack reaches the top.
import { randomInt } from "node:crypto";
import { z } from "zod";
import { defineEnvironment } from "../../environment_kit/define.js";
import { HttpError } from "../../http/errors.js";
import type { ResponseObject } from "../../protocol/index.js";
import { PythonRandom } from "../../verifiers/random/python_random.js";
import { GameError, TetrisGame, type StepInfo } from "./tetris.js";

const DEFAULT_ENV_CONFIG = {
  grid_lookup: { 0: "_", 1: "#", 2: "X" },
  action_lookup: { 0: "Left", 1: "Right", 2: "Down" },
  render_mode: "text",
  dim_x: 4,
  dim_y: 4,
  box_type: 3,
};

const Config = z.strictObject({
  /** NeMo Gym's `env_config`: the game's defaults, each overridable by the row's field of that name. */
  env_config: z.record(z.string(), z.unknown()).default(DEFAULT_ENV_CONFIG),
  /**
   * The state of the server process's global `random` (CPython's module-level generator), as
   * `random.seed(python_random_seed)` leaves it. NeMo Gym's TetrisEnv draws one unseeded game from it
   * when constructed, and the shape counts of that draw weight the seeded game that follows, so a
   * row's `seed` alone does not fix its game. CPython seeds that generator from the OS at start; 31
   * is a state under which NeMo Gym's code plays NeMo Gym's recorded example episodes exactly as
   * recorded. null: a fresh random state per server start, as in NeMo Gym.
   */
  python_random_seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable().default(31),
});
type Config = z.infer<typeof Config>;

/** An action id as Python holds it: the ints of a YAML lookup, the strings of a JSON row's lookup. */
type ActionId = number | string;
type ActionLookup = Array<[ActionId, string]>;

interface Session {
  game: TetrisGame;
  lookup: ActionLookup;
  observation: string;
  totalReward: number;
  done: boolean;
  lastInfo: StepInfo;
}

// Python's `re.IGNORECASE` also lets İ and ı match i; `\s` is Python's set of whitespace.
const WS = "[\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const ci = (word: string) => [...word].map((c) => (c === "i" ? "[iIİı]" : `[${c}${c.toUpperCase()}]`)).join("");
const ACTION_TAG = new RegExp(`<${ci("action")}>${WS}*(${ci("left")}|${ci("right")}|${ci("down")}|[0-2])${WS}*</${ci("action")}>`, "gu");

/** NeMo Gym's extract_text: the text of every message (string content, or its output_text parts). */
function extractText(response: ResponseObject): string {
  let text = "";
  for (const item of response.output as Array<Record<string, unknown>>) {
    if (item.type !== "message") continue;
    if (typeof item.content === "string") text += item.content;
    else if (Array.isArray(item.content)) {
      for (const part of item.content as Array<Record<string, unknown>>) if (part.type === "output_text" && typeof part.text === "string") text += part.text;
    }
  }
  return text;
}

function parseActions(text: string, lookup: ActionLookup): ActionId[] {
  const reverse = new Map<string, ActionId>();
  for (const [id, label] of lookup) reverse.set(label.toLowerCase(), id);
  const ids: ActionId[] = [];
  for (const match of text.matchAll(ACTION_TAG)) {
    const token = match[1]!.toLowerCase();
    const id: ActionId = /^[0-2]$/.test(token) ? Number(token) : (reverse.get(token) ?? -1);
    if (lookup.some(([key]) => key === id)) ids.push(id);
  }
  return ids;
}

function formatObservation(observation: string): string {
  return (
    "Tetris board:\n" +
    `${observation}\n\n` +
    "Legend: _=empty, #=settled block, X=falling piece.\n" +
    "Respond with one or more moves using <action>Left</action>, <action>Right</action>, " +
    "or <action>Down</action>. Multiple action tags in one turn are applied in order."
  );
}

const bad = (message: string) => new HttpError(400, message);

function lookupOf(value: unknown, fromYaml: boolean): ActionLookup {
  if (value === null || typeof value !== "object" || Array.isArray(value)) throw bad("action_lookup must be a mapping of action ids to labels");
  return Object.entries(value).map(([key, label]): [ActionId, string] => {
    if (typeof label !== "string") throw bad(`action_lookup label for ${key} must be a string`);
    return [fromYaml && /^(0|-?[1-9]\d*)$/.test(key) ? Number(key) : key, label];
  });
}

function dimension(value: unknown, name: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 1000) throw bad(`${name} must be an integer from 1 to 1000`);
  return value;
}

/** The row's `seed` as `random.seed` and then `np.random.seed` accept it (numpy's range and types). */
function seedOf(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value !== "number" || !Number.isInteger(value)) throw bad(`seed ${JSON.stringify(value)}: np.random.seed takes an integer`);
  if (value < 0 || value > 0xffffffff) throw bad("seed: Seed must be between 0 and 2**32 - 1");
  return value;
}

export default defineEnvironment({
  id: "grl_tetris",
  description: "Tetris in Gymnasium API style. Model emits one or more moves per turn.",
  configSchema: Config,
  state: z.custom<Session>(),
  setup: ({ config }: { config: Config }) => ({ processSeed: config.python_random_seed ?? randomInt(0, 2 ** 48) }),
  reset: (metadata, ctx) => {
    // NeMo Gym's _env_config_from_metadata: the row's fields of these names win over env_config.
    const envConfig: Record<string, unknown> = { ...ctx.config.env_config };
    let lookupFromRow = false;
    for (const key of ["grid_lookup", "action_lookup", "render_mode", "dim_x", "dim_y", "box_type"]) {
      if (key in metadata) {
        envConfig[key] = metadata[key];
        if (key === "action_lookup") lookupFromRow = true;
      }
    }
    const width = dimension(envConfig.dim_x ?? 4, "dim_x");
    const height = dimension(envConfig.dim_y ?? 4, "dim_y");
    const lookup = lookupOf(envConfig.action_lookup ?? DEFAULT_ENV_CONFIG.action_lookup, !lookupFromRow);
    const processSeed = ctx.resources.processSeed;
    try {
      const game = new TetrisGame(width, height, envConfig.box_type ?? 1, () => new PythonRandom(processSeed));
      const observation = game.reset(seedOf(metadata.seed));
      ctx.sessions.set(ctx.sessionId, { game, lookup, observation, totalReward: 0, done: false, lastInfo: {} });
      return { observation: formatObservation(observation), info: {} };
    } catch (error) {
      if (error instanceof GameError) throw bad(`cannot start the game: ${error.message}`);
      throw error;
    }
  },
  step: (action, _metadata, ctx) => {
    const session = ctx.sessions.get(ctx.sessionId);
    if (session === undefined) throw bad("Session not initialized. Call /reset first.");
    if (session.done) return { observation: session.observation, reward: 0, terminated: true, truncated: false, info: { ...session.lastInfo } };
    const ids = parseActions(extractText(action), session.lookup);
    if (ids.length === 0) throw bad("No <action>Left|Right|Down</action> tags found in response.");
    let stepReward = 0;
    const applied: Array<Record<string, unknown>> = [];
    for (const id of ids) {
      const { observation, reward, done, info } = session.game.step(id);
      stepReward += reward;
      session.totalReward += reward;
      session.observation = observation;
      session.lastInfo = info;
      applied.push({ action_id: id, action_label: session.lookup.find(([key]) => key === id)![1], reward, info });
      if (done) {
        session.done = true;
        break;
      }
    }
    const info = { ...session.lastInfo, total_reward: session.totalReward, num_actions_applied: applied.length, actions: applied };
    return {
      observation: session.done ? session.observation : formatObservation(session.observation),
      reward: stepReward,
      terminated: session.done,
      truncated: false,
      info,
    };
  },
});
