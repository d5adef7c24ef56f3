// grl_sokoban: level generation against NeMo Gym's own generator (testdata/levels.json, made by
// testdata/generate_levels.py with CPython and numpy), the game rules over HTTP in-process (moves,
// pushes, walls, the win, malformed moves answered 400 as NeMo Gym does), then NeMo Gym's config run
// unchanged by gymnasium_agent on NeMo Gym's recorded episodes: same boards, rewards, ends and info.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistantMessage, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { CookieJar } from "../../http/cookies.js";
import { closeDispatcher } from "../../http/client.js";
import { recordedRollouts } from "../../../test/helpers/nemo_gym_catalog.js";
import { runRecordedConfig } from "../../../test/helpers/recorded_config_run.js";
import { engineOf } from "../../../test/helpers/scope.js";
import { GenerationFailed, levelForSeed } from "./generation.js";
import environment, { formatObservation, parseAction } from "./index.js";
import { retrySeed } from "./retry_seed.js";
import levels from "./testdata/levels.json" with { type: "json" };

interface LevelCase {
  seed: number;
  dim_room: [number, number];
  num_boxes: number;
  room_fixed?: number[][];
  room_state?: number[][];
  error?: string;
  retry_seeds?: number[];
  retry_level?: { room_fixed: number[][]; room_state: number[][] };
}

describe("level generation, against NeMo Gym's generator run by CPython and numpy", () => {
  const cases = levels as unknown as LevelCase[];

  it("makes every seed's level exactly, and fails exactly where NeMo Gym's first attempt fails", () => {
    expect(cases.length).toBeGreaterThan(100);
    for (const c of cases) {
      if (c.error) {
        let failure: unknown;
        try {
          levelForSeed(c.seed, c.dim_room, c.num_boxes, 100);
        } catch (error) {
          failure = error;
        }
        expect(failure, `seed ${c.seed}`).toBeInstanceOf(GenerationFailed);
        expect((failure as GenerationFailed).pythonType).toBe(c.error);
      } else {
        const level = levelForSeed(c.seed, c.dim_room, c.num_boxes, 100);
        expect([level.roomFixed, level.roomState], `seed ${c.seed}`).toEqual([c.room_fixed, c.room_state]);
      }
    }
  });

  it("retries with abs(hash(str(seed))) % 2**32 as a PYTHONHASHSEED=0 process computes it, to the same level", () => {
    const retried = cases.filter((c) => c.retry_level);
    expect(retried.length).toBeGreaterThan(3);
    for (const c of cases.filter((x) => x.retry_seeds)) {
      let seed = c.seed;
      for (const expected of c.retry_seeds!) {
        seed = retrySeed(seed);
        expect(seed).toBe(expected);
      }
      if (c.retry_level) {
        const level = levelForSeed(seed, c.dim_room, c.num_boxes, 100);
        expect([level.roomFixed, level.roomState]).toEqual([c.retry_level.room_fixed, c.retry_level.room_state]);
      }
    }
  });
});

describe("reading the move", () => {
  it("takes the first <action> tag, else the first bare move word or digit, as NeMo Gym's patterns do", () => {
    expect(parseAction("I think <action> left </action> then <action>Up</action>")).toBe(3);
    expect(parseAction("<action>4</action>")).toBe(4);
    expect(parseAction("Let me move DOWN.")).toBe(2);
    expect(parseAction("upward, then 1")).toBe(1);
  });
});

// NeMo Gym's first example row: seed 84810 in a 5x5 room.
const ROW = { seed: 84810, dim_room: [5, 5], num_boxes: 1, responses_create_params: { input: [{ role: "user", content: "Solve the Sokoban puzzle step by step." }] } };
const move = (text: string) => ({ ...ROW, response: responseWith([assistantMessage(text)]) });

describe("the game over the Gymnasium-style routes", () => {
  let env: RunningInstance;
  beforeAll(async () => {
    env = await startInstance(environment);
  });
  afterAll(async () => {
    await env.close();
    await closeDispatcher();
  });

  it("shows the seed's board, walks, bumps walls, pushes the box home and ends with the win", async () => {
    const jar = new CookieJar();
    const reset = await env.request("/reset", ROW, jar);
    expect(reset.body).toEqual({ observation: formatObservation("#####\n#O__#\n#_X_#\n#_P_#\n#####"), info: {} });
    // Down is a wall: a wasted step, -0.1.
    const bump = await env.request("/step", move("<action>Down</action>"), jar);
    expect(bump.body).toEqual({
      observation: formatObservation("#####\n#O__#\n#_X_#\n#_P_#\n#####"),
      reward: -0.1,
      terminated: false,
      truncated: false,
      info: { action_is_effective: false, action_is_valid: true, success: false, action_id: 2, action_label: "Down", total_reward: -0.1 },
    });
    expect((await env.request("/step", move("<action>Up</action>"), jar)).body.observation).toBe(formatObservation("#####\n#OX_#\n#_P_#\n#___#\n#####"));
    expect((await env.request("/step", move("<action>Right</action>"), jar)).body.observation).toBe(formatObservation("#####\n#OX_#\n#__P#\n#___#\n#####"));
    await env.request("/step", move("up"), jar);
    const win = await env.request("/step", move("<action>3</action>"), jar);
    // The last board comes back bare, and the win pays -0.1 + 1 + 10.
    expect(win.body).toEqual({
      observation: "#####\n#√P_#\n#___#\n#___#\n#####",
      reward: 10.9,
      terminated: true,
      truncated: false,
      info: { action_is_effective: true, action_is_valid: true, success: true, action_id: 3, action_label: "Left", total_reward: -0.1 * 4 + 10.9 },
    });
    expect(win.body.info.total_reward).toBe(-0.1 + -0.1 + -0.1 + -0.1 + 10.9);
  });

  it("answers a move it cannot read 400 with NeMo Gym's reason, and keeps the episode", async () => {
    const jar = new CookieJar();
    await env.request("/reset", ROW, jar);
    const bad = await env.request("/step", move("I'll go diagonally"), jar);
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("Unable to parse action from response");
    const next = await env.request("/step", move("<action>Left</action>"), jar);
    expect(next.body.observation).toBe(formatObservation("#####\n#O__#\n#_X_#\n#P__#\n#####"));
    // A step without /reset, and a row whose level cannot be made, are 400s too, never 500s.
    expect((await env.request("/step", move("up"), new CookieJar())).status).toBe(400);
    const impossible = await env.request("/reset", { ...ROW, seed: 1000, dim_room: [4, 4] }, new CookieJar());
    expect(impossible.status).toBe(400);
    expect(JSON.stringify(impossible.body)).toContain("No Sokoban level for seed 1000");
    expect((await env.request("/reset", { ...ROW, seed: -3 }, new CookieJar())).status).toBe(400);
  });

  it("ends the episode after max_steps moves", async () => {
    const jar = new CookieJar();
    await env.request("/reset", { ...ROW, max_steps: 2 }, jar);
    expect((await env.request("/step", move("down"), jar)).body.terminated).toBe(false);
    const last = await env.request("/step", move("down"), jar);
    expect(last.body).toMatchObject({ observation: "#####\n#O__#\n#_X_#\n#_P_#\n#####", terminated: true, truncated: false });
    expect(last.body.info.success).toBe(false);
  });
});

describe("NeMo Gym's config, unchanged, on NeMo Gym's recorded episodes", () => {
  const recorded = recordedRollouts("grl_sokoban");
  /** The recorded assistant texts of each episode, by its first board. */
  const replies = new Map<string, string[]>();
  for (const rollout of recorded) {
    const board = rollout.responses_create_params.input.at(-1).content as string;
    replies.set(board, rollout.response.output.filter((item: any) => item.role === "assistant").map((item: any) => item.content[0].text));
  }
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "gym-sokoban-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("gymnasium_agent plays every episode to NeMo Gym's boards, reward, end and info; metrics as NeMo Gym's", async () => {
    expect(replies.size).toBe(recorded.length);
    const engine = await engineOf({
      policy: (turns) => {
        const board = turns.filter((t) => t.role === "user")[1]?.content ?? "";
        const texts = replies.get(board) ?? [];
        return { text: texts[turns.filter((t) => t.role === "assistant").length] ?? "no recorded reply" };
      },
    });
    await runRecordedConfig({
      id: "grl_sokoban",
      engineUrl: engine.baseUrl,
      recorded,
      dir,
      metrics: ["mean/reward", "mean/terminated", "mean/truncated", "std/reward", "max/reward", "min/reward", "median/reward"],
    });
  }, 200_000);
});
