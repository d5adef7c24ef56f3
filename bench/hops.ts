// `npm run bench -- hops [--requests 20000] [--concurrency 64] [--rounds 3]`
// CPU of one request/response between two servers of one process (issue 23, part B): Gymkit's
// `call()` over loopback HTTP (undici → node:http → Fastify), the same call in-process
// (src/http/inprocess.ts), and for comparison Fastify's `inject` and node:http's own client (native
// llhttp instead of undici's WebAssembly one) over loopback; a ~2 KB JSON body each way, through
// a `createServer` app (Host check, session cookie, JSON parser, error handler), rounds alternated.
import http from "node:http";
import { call, closeDispatcher, NO_RETRY } from "../src/http/client.js";
import { CookieJar } from "../src/http/cookies.js";
import { createServer, listen } from "../src/http/server.js";
import { INPROCESS_ENV, rereadInProcessSetting } from "../src/http/inprocess.js";
import { arg } from "./judged.js";
import { machineLine, markdownTable } from "./machine.js";

type Mode = "socket (undici)" | "in-process" | "fastify inject" | "socket (node:http client)";

const nodeAgent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

/** One POST with node:http's client: the comparison for option (b) of issue 23 part B. */
function nodeHttpPost(url: string, body: string, cookie: string | undefined): Promise<{ status: number; text: string; setCookie: string[] | undefined }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) };
    if (cookie) headers.cookie = cookie;
    const req = http.request(url, { method: "POST", agent: nodeAgent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8"), setCookie: res.headers["set-cookie"] }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

export default async function main(): Promise<void> {
const requests = Number(arg("requests", "20000"));
const concurrency = Number(arg("concurrency", "64"));
const rounds = Number(arg("rounds", "3"));

const app = createServer({ name: "hops" });
const payload = { messages: Array.from({ length: 20 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `message ${i} `.repeat(8) })) };
app.post("/echo", async (request) => ({ ok: true, body: request.body }));
const url = await listen(app);

async function run(mode: Mode): Promise<number> {
  process.env[INPROCESS_ENV] = mode === "in-process" ? "1" : "0";
  rereadInProcessSetting();
  let next = 0;
  const start = process.cpuUsage();
  const worker = async () => {
    const jar = new CookieJar();
    while (next++ < requests) {
      if (mode === "socket (node:http client)") {
        const r = await nodeHttpPost(`${url}/echo`, JSON.stringify(payload), jar.header());
        jar.update(r.setCookie);
        JSON.parse(r.text);
      } else if (mode === "fastify inject") {
        const r = await app.inject({ method: "POST", url: "/echo", payload: JSON.stringify(payload), headers: { "content-type": "application/json", host: url.slice(7) } });
        JSON.parse(r.body);
      } else {
        const r = await call(`${url}/echo`, { body: payload, cookies: jar, retry: NO_RETRY });
        if (r.status !== 200) throw new Error(`status ${r.status}`);
        JSON.parse(r.text);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(start);
  return ((used.user + used.system) / requests);
}

const modes: Mode[] = ["socket (undici)", "in-process", "fastify inject", "socket (node:http client)"];
const results = new Map<Mode, number[]>(modes.map((m) => [m, []]));
await run("in-process");
await run("socket (undici)");
for (let round = 0; round < rounds; round++) for (const mode of modes) results.get(mode)!.push(await run(mode));
await closeDispatcher();
nodeAgent.destroy();
await app.close();
console.log(`${machineLine()} · ${requests} requests per cell at ${concurrency} in flight, ${rounds} rounds alternated`);
console.log(markdownTable(["path", "CPU µs per request/response (rounds)"], modes.map((m) => [m, results.get(m)!.map((v) => v.toFixed(0)).join(", ")])));
}
