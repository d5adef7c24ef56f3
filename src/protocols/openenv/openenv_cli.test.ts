// `gym env start --protocols nemo-gym,openenv,mcp,ors` as a user runs it (three CLI spawns in all):
// the endpoints it prints answer each protocol's client (OpenEnv over WebSocket, MCP with the SDK's
// client, ORS as its reference client speaks it), `gym env status` lists them, and the reward of each
// episode played over each protocol equals the reward `gym eval run` gives the same row and answer
// (math_with_judge's shipped config and example rows; the policy is the fake engine).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { headUrlIn, readJsonlFile, runGym, startGym, stopChild, waitForOutput } from "../../../test/helpers/cli.js";
import { engineOf, onTeardown } from "../../../test/helpers/scope.js";

const CONFIG = "src/environments/math_with_judge/configs/math_with_judge.yaml";
const INPUT = "src/environments/math_with_judge/data/example.jsonl";

/** The policy's answer per row, by a phrase of its question: three right, two wrong. */
const ANSWERS: Array<[string, string]> = [
  ["1000 digit numbers", "The count is \\boxed{32}."],
  ["x_0 = 1", "\\boxed{7}"],
  ["1997", "\\boxed{\\frac{333}{1997}}"],
  ["", "\\boxed{\\sqrt{3}}"],
];
const answerFor = (prompt: string, rowIndex: number): string => {
  if (rowIndex === 4) return "So it is \\boxed{-3}.";
  return ANSWERS.find(([phrase]) => phrase !== "" && prompt.includes(phrase))?.[1] ?? ANSWERS[3]![1];
};

/** One OpenEnv episode over WebSocket: reset on the row, submit the answer, the reward. */
async function openEnvReward(baseUrl: string, rowIndex: number, answer: string): Promise<number> {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, "ws")}/ws`);
  const replies: unknown[] = [];
  const waiting: Array<(m: any) => void> = [];
  socket.on("message", (raw) => {
    const message = JSON.parse(String(raw)) as unknown;
    const next = waiting.shift();
    if (next) next(message);
    else replies.push(message);
  });
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  const send = (m: unknown) => {
    socket.send(JSON.stringify(m));
    return replies.length > 0 ? Promise.resolve(replies.shift() as any) : new Promise<any>((r) => waiting.push(r));
  };
  const reset = await send({ type: "reset", data: { row_index: rowIndex } });
  expect(reset.type, JSON.stringify(reset)).toBe("observation");
  const step = await send({ type: "step", data: { type: "submit_answer", answer } });
  expect(step.data.done).toBe(true);
  socket.send(JSON.stringify({ type: "close" }));
  return step.data.reward as number;
}

/** One MCP session (the SDK's client): an episode per row, the reward of each answer. */
async function mcpRewards(url: string, answers: string[]): Promise<number[]> {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = new Client({ name: "cli-conformance", version: "1.0.0" });
  await client.connect(transport);
  const rewards: number[] = [];
  for (const [row, answer] of answers.entries()) {
    await client.callTool({ name: "start_episode", arguments: { row_index: row } });
    const scored = (await client.callTool({ name: "submit_answer", arguments: { answer } })) as { structuredContent?: { reward?: number } };
    rewards.push(scored.structuredContent?.reward ?? Number.NaN);
  }
  await transport.terminateSession();
  await client.close();
  return rewards;
}

/** One ORS session per row, as the reference client opens it (create_session, create, call, delete). */
async function orsReward(base: string, row: number, answer: string): Promise<number> {
  const created = await (await fetch(`${base}/create_session`, { method: "POST" })).text();
  const sid = /event: task_id\r?\ndata: (\S+)/.exec(created)![1]!;
  const post = (path: string, body: unknown) => fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", "x-session-id": sid }, body: JSON.stringify(body) });
  expect((await post("/create", { split: "test", index: row })).status).toBe(200);
  const events = await (await post("/math_with_judge/call", { name: "submit_answer", input: { answer } })).text();
  const result = JSON.parse(/event: end\r?\ndata: (.*)/.exec(events)![1]!) as { output: { reward: number; finished: boolean } };
  expect(result.output.finished).toBe(true);
  await post("/delete", {});
  return result.output.reward;
}

describe("gym env start --protocols", () => {
  it("serves math_with_judge over OpenEnv, MCP and ORS, listed by env status, with gym eval run's rewards", async () => {
    const rows = readJsonlFile(join(process.cwd(), INPUT));
    const prompts = rows.map((r) => String(r.responses_create_params.input[0].content));
    const engine = await engineOf({ model: "m", policy: (turns) => ({ text: answerFor(turns.at(-1)!.content, prompts.indexOf(turns.at(-1)!.content)) }) });
    const model = ["--model-type", "vllm_model", "--model-url", engine.baseUrl, "--model", "m"];
    const dir = mkdtempSync(join(tmpdir(), "gym-protocols-"));
    onTeardown(async () => rmSync(dir, { recursive: true, force: true }));

    const server = startGym(["env", "start", "--config", CONFIG, ...model, "--head-port", "0", "--protocols", "nemo-gym,openenv,mcp,ors"]);
    onTeardown(async () => {
      await stopChild(server, "SIGINT");
    });
    const printed = await waitForOutput(server, (text) => text.includes("head server:"), 60_000);
    const openenvUrl = /^math_with_judge\s+openenv\s+(http:\/\/\S+)/m.exec(printed)?.[1];
    expect(openenvUrl, printed).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/openenv$/);
    const mcpUrl = /^math_with_judge\s+mcp\s+(http:\/\/\S+)/m.exec(printed)?.[1];
    expect(mcpUrl, printed).toBe(openenvUrl!.replace(/openenv$/, "mcp"));
    // ORS's reference client takes an origin only: its endpoint is the gateway's root.
    const orsUrl = /^math_with_judge\s+ors\s+(http:\/\/\S+)/m.exec(printed)?.[1];
    expect(orsUrl, printed).toBe(openenvUrl!.replace(/\/openenv$/, ""));
    const headUrl = headUrlIn(printed);

    const status = await runGym(["env", "status", "--head-url", headUrl]);
    for (const [protocol, url] of [["openenv", openenvUrl!], ["mcp", mcpUrl!], ["ors", orsUrl!]] as const) {
      expect(status.stdout).toMatch(new RegExp(`math_with_judge\\s+${protocol}\\s+${url.replace(/[.:/]/g, "\\$&")}\\s*$`, "m"));
    }

    const out = join(dir, "run.jsonl");
    const run = await runGym(["eval", "run", "--config", CONFIG, "--input", INPUT, "--agent", "math_with_judge_simple_agent", ...model, "-o", out, "--quiet"], { timeoutMs: 120_000 });
    expect(run.code, run.stderr + run.stdout).toBe(0);
    const evalRewards = readJsonlFile(out)
      .sort((a, b) => a._ng_task_index - b._ng_task_index)
      .map((r) => r.reward as number);
    expect(evalRewards).toEqual([1, 0, 1, 0, 1]);

    const openEnvRewards: number[] = [];
    for (const [i, prompt] of prompts.entries()) openEnvRewards.push(await openEnvReward(openenvUrl!, i, answerFor(prompt, i)));
    expect(openEnvRewards).toEqual(evalRewards);
    const answers = prompts.map((prompt, i) => answerFor(prompt, i));
    // MCP's one session and ORS's session per row at once (ORS sessions are independent of each other).
    const [mcpRewardList, orsRewards] = await Promise.all([mcpRewards(mcpUrl!, answers), Promise.all(answers.map((answer, i) => orsReward(orsUrl!, i, answer)))]);
    expect(mcpRewardList).toEqual(evalRewards);
    expect(orsRewards).toEqual(evalRewards);
  }, 200_000);
});
