// grl_tetris: the game against NeMo Gym's own TetrisEnv run under real CPython and numpy
// (testdata/make_tetris_games.py wrote the games and the raw `random.randint` draws), the
// Gymnasium-style routes in-process (moves, several tags a turn, illegal and malformed actions), then
// NeMo Gym's config run unchanged by gymnasium_agent on NeMo Gym's recorded episodes: the recorded
// replies reach the recorded boards, rewards and ends.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistantMessage, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { CookieJar } from "../../http/cookies.js";
import { closeDispatcher } from "../../http/client.js";
import { PythonRandom } from "../../verifiers/random/python_random.js";
import { recordedRollouts } from "../../../test/helpers/nemo_gym_catalog.js";
import { runRecordedConfig } from "../../../test/helpers/recorded_config_run.js";
import { engineOf } from "../../../test/helpers/scope.js";
import environment from "./index.js";
import { GameError, randint, TetrisGame } from "./tetris.js";

interface Fixture {
  randint: Array<{ seed: number; calls: Array<[number, number, number]> }>;
  games: Array<{
    process_seed: number;
    box_type: number;
    dims: [number, number];
    seed: number | null;
    error?: string;
    observation?: string;
    steps?: Array<{ action: number; observation: string; reward: number; done: boolean; info: Record<string, unknown> }>;
  }>;
}
const fixture = JSON.parse(gunzipSync(readFileSync(new URL("./testdata/tetris_games.json.gz", import.meta.url))).toString("utf8")) as Fixture;

describe("the game, against NeMo Gym's TetrisEnv under CPython and numpy", () => {
  it("draws random.randint as CPython does after random.seed(seed)", () => {
    for (const { seed, calls } of fixture.randint) {
      const rng = new PythonRandom(seed);
      expect(calls.map(([a, b]) => [a, b, randint(rng, a, b)]), `seed ${seed}`).toEqual(calls);
    }
  });

  it("plays every recorded game to the same boards, rewards, ends and infos", () => {
    let steps = 0;
    for (const game of fixture.games) {
      const label = JSON.stringify({ ...game, observation: undefined, steps: undefined });
      const make = () => {
        const tetris = new TetrisGame(game.dims[0], game.dims[1], game.box_type, () => new PythonRandom(game.process_seed));
        return { tetris, first: tetris.reset(game.seed) };
      };
      if (game.error !== undefined) {
        expect(make, label).toThrow(GameError);
        continue;
      }
      const { tetris, first } = make();
      expect(first, label).toBe(game.observation);
      for (const step of game.steps!) {
        expect(tetris.step(step.action), label).toEqual({ observation: step.observation, reward: step.reward, done: step.done, info: step.info });
        steps++;
      }
    }
    expect(fixture.games.length).toBe(360);
    expect(steps).toBeGreaterThan(6000);
  });
});

const ROW = JSON.parse(readFileSync(new URL("./data/example.jsonl", import.meta.url), "utf8").split("\n")[0]!) as Record<string, unknown>;
const board = (text: string) => text.split("\n\n")[0]!.replace("Tetris board:\n", "");
const say = (text: string) => responseWith([assistantMessage(text)]);

describe("the Gymnasium-style routes", () => {
  let env: RunningInstance;
  beforeAll(async () => {
    env = await startInstance(environment);
  });
  afterAll(async () => {
    await env.close();
    await closeDispatcher();
  });

  it("starts the row's game and applies every action tag of a reply in order, ending on a cleared line", async () => {
    const jar = new CookieJar();
    const reset = await env.request("/reset", ROW, jar);
    expect(reset.status).toBe(200);
    expect(reset.body.info).toEqual({});
    // NeMo Gym's recorded first board for this row; the legend and instructions follow it.
    expect(board(reset.body.observation)).toBe("__XX\n____\n____\n____");
    expect(reset.body.observation).toContain("Multiple action tags in one turn are applied in order.");
    // Recorded: Down ×3 settles the O at the right; the next O comes down on the left and clears two lines.
    const first = await env.request("/step", { ...ROW, response: say("Thinking... <action>down</action> then < action>x</action> <ACTION> Down </ACTION><action>2</action>") }, jar);
    expect(first.body).toMatchObject({ reward: -0.30000000000000004, terminated: false, truncated: false });
    expect(board(first.body.observation)).toBe("XX__\n____\n__##\n__##");
    expect(first.body.info).toMatchObject({ num_actions_applied: 3, dropped: true, success: false, total_reward: -0.30000000000000004 });
    expect(first.body.info.actions.map((a: any) => [a.action_id, a.action_label])).toEqual([[2, "Down"], [2, "Down"], [2, "Down"]]);
    // Left against the wall moves nothing (ineffective, still −0.1); the episode ends mid-reply on the clear.
    const last = await env.request("/step", { ...ROW, response: say("<action>Left</action><action>Down</action><action>Down</action><action>Down</action><action>Right</action>") }, jar);
    expect(last.body.terminated).toBe(true);
    expect(last.body.reward).toBe(0 - 0.1 - 0.1 - 0.1 + 19.9);
    expect(last.body.info.actions[0].info.action_is_effective).toBe(false);
    expect(last.body.info).toMatchObject({ success: true, num_actions_applied: 4, total_reward: 0 - 0.1 - 0.1 - 0.1 - 0.1 - 0.1 - 0.1 + 19.9 });
    // Once over, the observation is the bare board, as NeMo Gym returns it.
    expect(last.body.observation).not.toContain("Tetris board:");
    expect(last.text).toContain('"reward":19.599999999999998');
  });

  it("answers a reply without an action tag 400 with NeMo Gym's message, and a step before any reset", async () => {
    const jar = new CookieJar();
    await env.request("/reset", ROW, jar);
    for (const text of ["I will move down.", "<action>up</action>", "<action>7</action>", "<action>Down"]) {
      const step = await env.request("/step", { ...ROW, response: say(text) }, jar);
      expect(step.status, text).toBe(400);
      expect(JSON.stringify(step.body)).toContain("No <action>Left|Right|Down</action> tags found in response.");
    }
    // The game goes on after a malformed reply.
    expect((await env.request("/step", { ...ROW, response: say("<action>1</action>") }, jar)).body.reward).toBe(-0.1);
    const fresh = await env.request("/step", { ...ROW, response: say("<action>Down</action>") }, new CookieJar());
    expect(fresh.status).toBe(400);
    expect(JSON.stringify(fresh.body)).toContain("Session not initialized. Call /reset first.");
  });

  it("ends the game unplayed (reward 0, error info) on an action id the game lacks, as NeMo Gym does with a row's action_lookup", async () => {
    // A row's lookup comes as JSON, so its ids are strings: NeMo Gym hands "2" to the game, which refuses it.
    const row = { ...ROW, action_lookup: { 0: "Left", 1: "Right", 2: "Down" } };
    const jar = new CookieJar();
    await env.request("/reset", row, jar);
    const step = await env.request("/step", { ...row, response: say("<action>Down</action>") }, jar);
    expect(step.body).toMatchObject({ reward: 0, terminated: true, info: { error: "Invalid action", total_reward: 0, num_actions_applied: 1 } });
    expect(step.body.info.actions[0]).toMatchObject({ action_id: "2", action_label: "Down", reward: 0 });
  });

  it("reads dim_x, dim_y and box_type from the row, not dim_board (which NeMo Gym ignores)", async () => {
    const wide = await env.request("/reset", { ...ROW, dim_board: [6, 6], box_type: 1, dim_x: 6, dim_y: 2 }, new CookieJar());
    expect(board(wide.body.observation).split("\n").map((line: string) => line.length)).toEqual([6, 6]);
    const ignored = await env.request("/reset", { ...ROW, dim_board: [6, 6] }, new CookieJar());
    expect(board(ignored.body.observation)).toBe("__XX\n____\n____\n____");
  });

  it("refuses what numpy or the game would raise on (NeMo Gym answers 500) with 400, and /verify", async () => {
    for (const row of [{ ...ROW, seed: -1 }, { ...ROW, seed: 2 ** 32 }, { ...ROW, seed: 1.5 }, { ...ROW, seed: "7" }, { ...ROW, dim_x: 1, box_type: 2, seed: 0 }, { ...ROW, dim_x: "4" }]) {
      const reset = await env.request("/reset", row, new CookieJar());
      expect(reset.status, JSON.stringify(row)).toBe(400);
    }
    expect((await env.request("/reset", { ...ROW, seed: 2 ** 32 - 1 }, new CookieJar())).status).toBe(200);
    expect((await env.request("/verify", { ...ROW, response: say("<action>Down</action>") })).status).toBe(400);
  });

  it("without a seed, plays the game of the process's global random, the same every episode of one server", async () => {
    const { seed: _seed, ...row } = ROW;
    const a = await env.request("/reset", row, new CookieJar());
    const b = await env.request("/reset", row, new CookieJar());
    expect(a.body.observation).toBe(b.body.observation);
  });
});

describe("NeMo Gym's config, unchanged, on NeMo Gym's recorded episodes", () => {
  const recorded = recordedRollouts("grl_tetris");
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "gym-grl-tetris-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Each recorded episode as its boards (the user observations) and the replies after each. */
  const episodes = recorded.map((rollout) => {
    const items = [rollout.responses_create_params.input.at(-1), ...rollout.response.output] as Array<Record<string, any>>;
    return {
      boards: items.filter((item) => item.role === "user").map((item) => item.content as string),
      replies: items.filter((item) => item.role === "assistant").map((item) => item.content[0].text as string),
    };
  });

  it("gymnasium_agent plays every episode to NeMo Gym's boards, rewards and ends; metrics as NeMo Gym's", async () => {
    // The engine double replies as the recorded episodes whose boards so far are this game's did.
    const engine = await engineOf({
      policy: (turns) => {
        const boards = turns.filter((t) => t.role === "user" && t.content.startsWith("Tetris board:")).map((t) => t.content);
        const candidates = episodes.filter((e) => boards.every((b, i) => e.boards[i] === b));
        const replies = new Set(candidates.map((e) => e.replies[boards.length - 1]));
        return { text: replies.size === 1 ? [...replies][0]! : "no single recorded reply" };
      },
    });
    await runRecordedConfig({
      id: "grl_tetris",
      engineUrl: engine.baseUrl,
      recorded,
      dir,
      metrics: ["mean/terminated", "mean/truncated", "max/reward", "min/reward", "median/reward"],
      // NeMo Gym sums the rewards in task order (5.199999999999999); Gymkit's merge of per-task chunks
      // rounds differently in the last bit.
      metricsClose: ["mean/reward", "std/reward"],
    });
  }, 200_000);
});
