// grl_sokoban: NeMo Gym's single-box Sokoban on the Gymnasium-style contract
// (NVIDIA-NeMo/Gym 07d6b0d resources_servers/grl_sokoban/app.py), played by gymnasium_agent. /reset
// generates the row's level from its `seed` (generation.ts, draw for draw as NeMo Gym's generator) and
// shows the board; each /step reads one move from the model's text and plays it with gym-sokoban
// 0.0.6's mechanics (game.ts); the episode ends when every box is on a target or after max_steps moves.
import { z } from "zod";
import { HttpError } from "../../http/errors.js";
import { outputText } from "../../protocol/index.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { newGame, render, step, type Game } from "./game.js";
import { GenerationFailed, levelForSeed, type Level } from "./generation.js";
import { retrySeed } from "./retry_seed.js";

/** The env_config keys Gymkit honours (NeMo Gym's grid_lookup, action_lookup and render_mode are fixed to their defaults). */
const EnvConfig = z.object({
  search_depth: z.number().int().positive().optional(),
  dim_room: z.tuple([z.number().int().min(3), z.number().int().min(3)]).optional(),
  max_steps: z.number().int().positive().optional(),
  num_boxes: z.number().int().positive().optional(),
});
type EnvConfig = z.infer<typeof EnvConfig>;

const Config = z.strictObject({
  /** NeMo Gym's env_config; given, it replaces the defaults wholesale (SokobanEnv's own defaults fill the gaps). */
  env_config: EnvConfig.passthrough().optional(),
});

/** NeMo Gym's GrlSokobanResourcesServerConfig.env_config default. */
const SERVER_DEFAULTS = { search_depth: 100, dim_room: [6, 6] as [number, number], max_steps: 100, num_boxes: 1 };
/** SokobanEnv's own defaults, for keys missing from a configured env_config. */
const ENV_DEFAULTS = { search_depth: 300, dim_room: [6, 6] as [number, number], max_steps: 100, num_boxes: 1 };
/** Generation retries before giving up (NeMo Gym recurses until Python's RecursionError). */
const MAX_RETRIES = 20;

const LABELS = { 1: "Up", 2: "Down", 3: "Left", 4: "Right" } as const;
type ActionId = keyof typeof LABELS;
// Python's \b is Unicode-aware: a word character is a letter, a digit or "_".
const ACTION_TAG = /<action>\s*(up|down|left|right|[1-4])\s*<\/action>/iu;
const ACTION_WORD = /(?<![\p{L}\p{N}_])(up|down|left|right|[1-4])(?![\p{L}\p{N}_])/iu;

/** NeMo Gym's _format_observation (shown after reset and after every step that does not end the episode). */
export const formatObservation = (board: string) =>
  "Sokoban board:\n" +
  `${board}\n\n` +
  "Legend: #=wall, _=floor, O=target, X=box, √=box on target, P=player, S=player on target.\n" +
  "Respond with exactly one move using <action>Up</action>, <action>Down</action>, " +
  "<action>Left</action>, or <action>Right</action>.";

/** NeMo Gym's _parse_action: the first <action> tag, else the first bare move word or digit 1-4. */
export function parseAction(text: string): ActionId {
  const match = ACTION_TAG.exec(text.trim()) ?? ACTION_WORD.exec(text.trim());
  if (!match) throw new HttpError(400, `Unable to parse action from response: ${pythonRepr(text.trim())}`);
  const token = match[1]!.toLowerCase();
  if (/^[1-4]$/.test(token)) return Number(token) as ActionId;
  return ({ up: 1, down: 2, left: 3, right: 4 } as const)[token as "up"];
}

/** Python's repr of a str, near enough for an error message. */
const pythonRepr = (text: string) => (text.includes("'") && !text.includes('"') ? `"${text}"` : `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/\n/g, "\\n")}'`);

interface Session {
  game: Game;
  totalReward: number;
}

function settings(config: { env_config?: EnvConfig | undefined }, metadata: Record<string, unknown>) {
  const base = config.env_config ? { ...ENV_DEFAULTS, ...config.env_config } : { ...SERVER_DEFAULTS };
  const fromRow = EnvConfig.safeParse({
    search_depth: metadata.search_depth,
    dim_room: metadata.dim_room,
    max_steps: metadata.max_steps,
    num_boxes: metadata.num_boxes,
  });
  if (!fromRow.success) throw new HttpError(400, `Invalid level settings in the row: ${fromRow.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
  const row = Object.fromEntries(Object.entries(fromRow.data).filter(([, value]) => value !== undefined));
  return { ...base, ...row } as typeof SERVER_DEFAULTS;
}

/** SokobanEnv.reset(seed): the seed's level, or on a failed generation the retry seeds' (see retry_seed.ts). */
function levelOf(seed: number, dim: [number, number], numBoxes: number, searchDepth: number): Level {
  let current = seed;
  for (let attempt = 0; ; attempt++) {
    try {
      return levelForSeed(current, dim, numBoxes, searchDepth);
    } catch (error) {
      if (!(error instanceof GenerationFailed)) throw error;
      if (attempt >= MAX_RETRIES) throw new HttpError(400, `No Sokoban level for seed ${seed} in a ${dim[0]}x${dim[1]} room with ${numBoxes} box(es): generation failed ${attempt + 1} times (${error.message})`);
      current = retrySeed(current);
    }
  }
}

export default defineEnvironment({
  id: "grl_sokoban",
  description: "Single-box Sokoban in Gymnasium API style: one move per turn until the puzzle is solved.",
  configSchema: Config,
  state: z.custom<Session>(),
  reset: (metadata, ctx) => {
    const { search_depth, dim_room, max_steps, num_boxes } = settings(ctx.config, metadata);
    const seedValue = metadata.seed;
    if (seedValue !== undefined && seedValue !== null && !(Number.isSafeInteger(seedValue) && (seedValue as number) >= 0 && (seedValue as number) <= 0xffffffff)) {
      throw new HttpError(400, `seed must be an integer between 0 and 2**32 - 1, not ${JSON.stringify(seedValue)}`);
    }
    // Without a seed NeMo Gym draws from its process's RNG state; Gymkit draws a fresh seed.
    const seed = typeof seedValue === "number" ? seedValue : Math.floor(Math.random() * 0x100000000);
    const level = levelOf(seed, dim_room, num_boxes, search_depth);
    const game = newGame(level.roomFixed, level.roomState, num_boxes, max_steps);
    ctx.sessions.set(ctx.sessionId, { game, totalReward: 0 });
    return { observation: formatObservation(render(game)), info: {} };
  },
  step: (action, _metadata, ctx) => {
    const session = ctx.sessions.get(ctx.sessionId);
    if (!session) throw new HttpError(400, "Session not initialized. Call /reset first.");
    const actionId = parseAction(outputText(action));
    const before = session.game.player.join(",");
    const { reward, done } = step(session.game, actionId);
    session.totalReward += reward;
    const info = {
      action_is_effective: session.game.player.join(",") !== before,
      action_is_valid: true,
      success: session.game.boxesOnTarget === session.game.numBoxes,
      action_id: actionId,
      action_label: LABELS[actionId],
      total_reward: session.totalReward,
    };
    const board = render(session.game);
    return { observation: done ? board : formatObservation(board), reward, terminated: done, truncated: false, info };
  },
});
