// blackjack over HTTP: the game's rules in-process (deals, hits, busts, the dealer drawing to 17, soft
// aces, win/draw/loss, malformed actions standing as NeMo Gym's parser makes them, bad rows answered
// 422, never a 500), then NeMo Gym's config run unchanged by gymnasium_agent on NeMo Gym's recorded
// games: each game dealt the recorded cards (read back from the recorded observations and info) and
// played with the recorded replies reaches the recorded reward, result and conversation.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistantMessage, readJsonlFile, responseWith, startInstance, type RunningInstance } from "../../environment_kit/testing.js";
import { CookieJar } from "../../http/cookies.js";
import { closeDispatcher } from "../../http/client.js";
import { recordedRollouts } from "../../../test/helpers/nemo_gym_catalog.js";
import { runRecordedConfig } from "../../../test/helpers/recorded_config_run.js";
import { engineOf } from "../../../test/helpers/scope.js";
import { decisionOf, handValue, RANKS } from "./cards.js";
import environment from "./index.js";

const ROW = { responses_create_params: { input: [{ role: "user", content: "Deal me in." }] } };
const PROMPT = "Respond with <action>hit</action> or <action>stand</action>.";
const say = (text: string) => responseWith([assistantMessage(text)]);

describe("the cards and the action, as NeMo Gym's", () => {
  it("values hands with aces 11 until that busts", () => {
    expect(handValue(["5", "7"])).toBe(12);
    expect(handValue(["K", "Q"])).toBe(20);
    expect(handValue(["A", "K", "5"])).toBe(16);
    expect(handValue(["A", "9"])).toBe(20);
    expect(handValue(["A", "A"])).toBe(12);
    expect(handValue(["A", "5", "9", "10"])).toBe(25);
    expect(handValue(["A", "2", "2", "3"])).toBe(18);
  });

  it("reads the first action tag as CPython's re does (no tag or an unknown action stands)", () => {
    // [text, Python's decision] from CPython 3.11:
    //   m = re.search(r"<action>\s*(hit|stand)\s*</action>", t, re.IGNORECASE); m.group(1).lower() if m else "stand"
    // (a decision other than "hit" stands).
    const cases: Array<[string, string]> = [
      ["<action>hit</action>", "hit"], ["<action>  HIT\n</action>", "hit"], ["i don't know, maybe hit?", "stand"],
      ["<action>fold</action>", "stand"], ["<ACTION>Hit</ACTION>", "hit"], ["<action>h\u0131t</action> <action>hit</action>", "h\u0131t"],
      ["<act\u0130on>hit</act\u0130on>", "hit"], ["<action>\u017ftand</action><action>hit</action>", "\u017ftand"],
      ["<action>\u001chit\u0085</action>", "hit"], ["<action>\ufeffhit</action>", "stand"], ["<action>stand</action><action>hit</action>", "stand"],
      ["<action>hi t</action>", "stand"], ["hit", "stand"], ["", "stand"],
    ];
    for (const [text, python] of cases) expect(decisionOf(text), JSON.stringify(text)).toBe(python === "hit" ? "hit" : "stand");
  });
});

describe("the Gymnasium-style routes", () => {
  let env: RunningInstance;
  beforeAll(async () => {
    env = await startInstance(environment);
  });
  afterAll(async () => {
    await env.close();
    await closeDispatcher();
  });

  const play = async (deck: string[], actions: string[]) => {
    const jar = new CookieJar();
    const row = { ...ROW, deck };
    const reset = await env.request("/reset", row, jar);
    const steps = [];
    for (const text of actions) steps.push((await env.request("/step", { ...row, response: say(text) }, jar)).body);
    return { reset: reset.body, steps, jar };
  };

  it("deals from the row's deck: hit, hit, bust ends with -1", async () => {
    const { reset, steps, jar } = await play(["8", "5", "A", "7", "3", "Q"], ["<action>hit</action>", "I'll <action>hit</action> again"]);
    expect(reset).toEqual({ observation: `Your hand: [8, 5] = 13\nDealer shows: A\n${PROMPT}`, info: {} });
    expect(steps[0]).toEqual({ observation: `Your hand: [8, 5, 3] = 16\nDealer shows: A\n${PROMPT}`, reward: 0, terminated: false, truncated: false, info: {} });
    expect(steps[1]).toEqual({ observation: null, reward: -1, terminated: true, truncated: false, info: { result: "bust", player: "[8, 5, 3, Q]", value: 26 } });
    // The episode's hand went with its end: the next step deals a new one (random cards now) and plays it.
    const after = await env.request("/step", { ...ROW, response: say("<action>stand</action>") }, jar);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({ observation: null, terminated: true });
    expect([-1, 0, 1]).toContain(after.body.reward);
  });

  it("stands: the dealer draws to 17 or more (soft aces counted low when over 21); win, draw, loss", async () => {
    const win = await play(["10", "3", "A", "5", "9", "10"], ["<action>stand</action>"]);
    expect(win.steps[0]).toEqual({ observation: null, reward: 1, terminated: true, truncated: false, info: { result: "win", player: "[10, 3]", player_value: 13, dealer: "[A, 5, 9, 10]", dealer_value: 25 } });
    const soft = await play(["8", "A", "A", "2", "2", "3"], ["<action>stand</action>"]);
    expect(soft.steps[0]).toMatchObject({ reward: 1, info: { result: "win", player_value: 19, dealer: "[A, 2, 2, 3]", dealer_value: 18 } });
    const draw = await play(["K", "8", "9", "9"], ["<action>stand</action>"]);
    expect(draw.steps[0]).toMatchObject({ reward: 0, info: { result: "draw", player_value: 18, dealer_value: 18 } });
    const loss = await play(["K", "6", "7", "Q"], ["<action>stand</action>"]);
    expect(loss.steps[0]).toMatchObject({ reward: -1, info: { result: "loss", player_value: 16, dealer: "[7, Q]", dealer_value: 17 } });
    const hitThenStand = await play(["2", "K", "4", "8", "3", "K"], ["<action>hit</action>", "<action>stand</action>"]);
    expect(hitThenStand.steps[1]).toMatchObject({ reward: 1, info: { result: "win", player: "[2, K, 3]", player_value: 15, dealer: "[4, 8, K]", dealer_value: 22 } });
  });

  it("a malformed or unknown action stands, as NeMo Gym's parser makes it", async () => {
    for (const text of ["maybe hit?", "<action>fold</action>", "", "<action>double</action>", "<action>hit me</action>"]) {
      const { steps } = await play(["2", "2", "10", "9"], [text]);
      expect(steps[0], text).toMatchObject({ observation: null, reward: -1, terminated: true, info: { result: "loss", player: "[2, 2]", dealer: "[10, 9]" } });
    }
    // A response with no message at all (only a tool call) has no text: it stands too.
    const jar = new CookieJar();
    await env.request("/reset", { ...ROW, deck: ["2", "2", "10", "9"] }, jar);
    const call = await env.request("/step", { ...ROW, response: responseWith([{ type: "function_call", name: "hit", arguments: "{}", call_id: "c", id: "fc", status: "completed" }]) }, jar);
    expect(call.body).toMatchObject({ reward: -1, terminated: true, info: { result: "loss" } });
  });

  it("deals random cards without a deck, and after the deck runs out", async () => {
    const seen = new Set<string>();
    for (let game = 0; game < 60; game++) {
      const { reset } = await play([], []);
      const m = /^Your hand: \[(\w+), (\w+)\] = (\d+)\nDealer shows: (\w+)\n/.exec(reset.observation as string)!;
      expect(m).not.toBeNull();
      for (const card of [m[1]!, m[2]!, m[4]!]) seen.add(card);
      expect(Number(m[3])).toBe(handValue([m[1]!, m[2]!]));
    }
    expect([...seen].every((card) => (RANKS as readonly string[]).includes(card))).toBe(true);
    expect(seen.size).toBeGreaterThan(8);
    // Two cards of deck: the player's; the dealer's come at random.
    const { reset, steps } = await play(["K", "Q"], ["<action>stand</action>"]);
    expect(reset.observation).toMatch(/^Your hand: \[K, Q\] = 20\n/);
    expect(steps[0].info.player).toBe("[K, Q]");
    expect(handValue((steps[0].info.dealer as string).slice(1, -1).split(", "))).toBeGreaterThanOrEqual(17);
  });

  it("answers a bad deck, a step without a response and /verify with a clear 4xx, never a 500", async () => {
    for (const deck of ["8,5", [8, 5], ["8", "Z"], [{}]]) {
      const reply = await env.request("/reset", { ...ROW, deck });
      expect(reply.status, JSON.stringify(deck)).toBe(422);
      expect(JSON.stringify(reply.body)).toContain("deck must be a list of card ranks");
    }
    expect((await env.request("/step", ROW)).status).toBe(422);
    expect((await env.request("/reset", { deck: [] })).status).toBe(422);
    const verify = await env.request("/verify", { ...ROW, response: say("<action>hit</action>") });
    expect(verify.status).toBe(400);
    // A step with no /reset before it deals first, then plays the action.
    const first = await env.request("/step", { ...ROW, deck: ["5", "3", "K", "7", "2"], response: say("<action>hit</action>") });
    expect(first.body).toEqual({ observation: `Your hand: [5, 3, 2] = 10\nDealer shows: K\n${PROMPT}`, reward: 0, terminated: false, truncated: false, info: {} });
  });
});

/**
 * The cards a recorded game was dealt, in dealing order, read back from its first observation and its
 * final info: player's two, dealer's up card, dealer's hole card, the player's hits, the dealer's draws.
 * A game that ended in a bust never showed the hole card; any rank stands in for it ("2").
 */
function recordedDeck(rollout: Record<string, any>): string[] {
  const input = rollout.responses_create_params.input as Array<{ content: string }>;
  const first = /^Your hand: \[(.+)\] = \d+\nDealer shows: (\S+)\n/.exec(input[input.length - 1]!.content)!;
  const dealt = first[1]!.split(", ");
  const up = first[2]!;
  const player = (rollout.info.player as string).slice(1, -1).split(", ");
  const dealer = typeof rollout.info.dealer === "string" ? (rollout.info.dealer as string).slice(1, -1).split(", ") : [up, "2"];
  expect(player.slice(0, 2)).toEqual(dealt);
  expect(dealer[0]).toBe(up);
  return [...dealt, up, dealer[1]!, ...player.slice(2), ...dealer.slice(2)];
}

describe("NeMo Gym's config, unchanged, on NeMo Gym's recorded games with the recorded cards", () => {
  const recorded = recordedRollouts("blackjack");
  const inputs = readJsonlFile(new URL("./data/example_rollouts_materialized_inputs.jsonl", import.meta.url));
  const firstObservation = (rollout: Record<string, any>) => rollout.responses_create_params.input.at(-1).content as string;
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "gym-blackjack-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("gymnasium_agent plays every recorded game to NeMo Gym's reward, result and conversation", async () => {
    expect(recorded).toHaveLength(5);
    // The engine double knows a game by its first observation and answers turn N with the recorded reply N.
    const byObservation = new Map(recorded.map((r) => [firstObservation(r), r.response.output.filter((item: any) => item.role === "assistant").map((item: any) => item.content[0].text as string)]));
    expect(byObservation.size).toBe(recorded.length);
    const engine = await engineOf({
      policy: (turns) => {
        const users = turns.filter((t) => t.role === "user");
        const replies = byObservation.get(users[1]?.content ?? "") ?? [];
        return { text: replies[turns.filter((t) => t.role === "assistant").length] ?? "no recorded reply" };
      },
    });
    // NeMo Gym's materialized rows, each given the cards of the recorded game with its indices.
    const rowsPath = join(dir, "rows_with_decks.jsonl");
    const theirsOf = (row: Record<string, any>) => recorded.find((r) => r._ng_rollout_index === row._ng_rollout_index);
    writeFileSync(rowsPath, inputs.map((row) => JSON.stringify({ ...row, deck: recordedDeck(theirsOf(row)!) })).join("\n") + "\n");
    await runRecordedConfig({
      id: "blackjack",
      engineUrl: engine.baseUrl,
      recorded,
      input: rowsPath,
      dir,
      theirsOf,
      input_compared: "role_content",
      metrics: ["mean/reward", "mean/terminated", "mean/truncated", "std/reward", "max/reward", "min/reward", "median/reward"],
    });
  }, 200_000);
});
