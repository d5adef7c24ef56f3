// `npm run bench -- engine_hop [--requests 10000] [--concurrency 64] [--rounds 3]`
// CPU of the calling process per socket hop whose server is another process (a model server's call
// to its engine; every hop with `--process-per-server`): a chat-completions POST (~1 KB) to the fake
// engine running in its own process, so only the client side is measured. Rows: undici's `request`
// API with `body.text()` (what `call()` used before session 12), `requestText` (src/http/text_request.ts:
// undici's dispatch API, the reply collected as text), and the whole `call()` (timer, signal,
// headers and retry loop around `requestText`). Rounds alternate the order.
import { spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { join } from "node:path";
import { call, closeDispatcher, dispatcher, NO_RETRY } from "../src/http/client.js";
import { requestText } from "../src/http/text_request.js";
import { request } from "../src/http/undici_lite.js";
import { REPO_ROOT } from "../test/helpers/cli.js";
import { arg } from "./judged.js";
import { machineLine, markdownTable } from "./machine.js";

type Mode = "undici request API + body.text()" | "requestText" | "call() (requestText inside)";

class Signal extends EventEmitter {
  aborted = false;
  reason: unknown = undefined;
}

export default async function main(): Promise<void> {
  const requests = Number(arg("requests", "10000"));
  const concurrency = Number(arg("concurrency", "64"));
  const rounds = Number(arg("rounds", "3"));
  const engine = spawn(process.execPath, ["--import", "tsx", join(REPO_ROOT, "bench", "fake_engine_process.ts")], { cwd: REPO_ROOT, stdio: ["ignore", "pipe", "inherit"] });
  const base = await new Promise<string>((resolve) => engine.stdout!.once("data", (d: Buffer) => resolve(String(d).trim())));
  const url = `${base}/chat/completions`;
  const payload = {
    model: "m",
    messages: [
      { role: "system", content: "You are a helpful assistant. ".repeat(10) },
      { role: "user", content: "what's it like in sf? (question 1)" },
    ],
    tools: [{ type: "function", function: { name: "get_weather", description: "Get the weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } }],
    temperature: 1,
  };

  async function run(mode: Mode): Promise<number> {
    let next = 0;
    const start = process.cpuUsage();
    const worker = async () => {
      while (next++ < requests) {
        let text: string;
        if (mode === "call() (requestText inside)") {
          const r = await call(url, { body: payload, retry: NO_RETRY });
          text = r.text;
        } else {
          const options = { method: "POST" as const, headers: { "content-type": "application/json" }, body: JSON.stringify(payload), dispatcher: dispatcher(), signal: new Signal() };
          const r = mode === "requestText" ? await requestText(url, options) : await request(url, options);
          text = await r.body.text();
        }
        JSON.parse(text);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const used = process.cpuUsage(start);
    return (used.user + used.system) / requests;
  }

  const modes: Mode[] = ["undici request API + body.text()", "requestText", "call() (requestText inside)"];
  const results = new Map<Mode, number[]>(modes.map((m) => [m, []]));
  for (const mode of modes) await run(mode); // warm-up
  for (let round = 0; round < rounds; round++) for (const mode of round % 2 ? [...modes].reverse() : modes) results.get(mode)!.push(await run(mode));
  await closeDispatcher();
  engine.kill("SIGTERM");
  console.log(`${machineLine()} · ${requests} requests per cell at ${concurrency} in flight, ${rounds} rounds alternated, engine in its own process`);
  console.log(markdownTable(["client path", "CPU µs of the calling process per call (rounds)"], modes.map((m) => [m, results.get(m)!.map((v) => v.toFixed(1)).join(", ")])));
}
