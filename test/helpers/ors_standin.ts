// A small Open Reward Standard server written from the spec (openrewardstandard/python-sdk a399408,
// src/ors/server.py, types.py, _reconnect.py): it stands in for a third-party ORS environment that
// Gymkit drives (src/protocols/drive/ors.ts). One environment, `arith`, with a `test` split of
// addition tasks and two tools: `scratch` (a note; reward 0) and `submit` (reward 1 when the answer is
// the sum; finishes the episode). Sessions by X-Session-ID; streamed routes answer server-sent events
// (`task_id`, then `end` carrying the JSON, in 4096-character chunks as the reference server does).
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";

export const ARITH_TASKS = [
  { a: 2, b: 3 },
  { a: 5, b: 8 },
  { a: 10, b: 32 },
  { a: 7, b: 7 },
];

const TOOLS = [
  { name: "scratch", description: "Write a note to yourself.", input_schema: { type: "object", properties: { note: { type: "string" } }, required: ["note"] } },
  { name: "submit", description: "Submit the final answer.", input_schema: { type: "object", properties: { answer: { type: "integer" } }, required: ["answer"] } },
];

export interface OrsStandin {
  url: string;
  /** Every `/create` body received, in order. */
  created: Array<Record<string, unknown>>;
  /** Sessions whose environment is live now. */
  live(): number;
  close(): Promise<void>;
}

export async function startOrsStandin(): Promise<OrsStandin> {
  const created: Array<Record<string, unknown>> = [];
  const sessions = new Map<string, { task: { a: number; b: number }; finished: boolean }>();
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: Record<string, any>;
    try {
      body = text ? JSON.parse(text) : {};
    } catch {
      return json(422, { detail: "body is not JSON" });
    }
    const sid = request.headers["x-session-id"] as string | undefined;
    const path = (request.url ?? "/").split("?")[0]!;
    function json(status: number, value: unknown) {
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
    }
    function stream(result: string) {
      const taskId = randomUUID().replaceAll("-", "");
      let out = `event: task_id\r\ndata: ${taskId}\r\n\r\n`;
      if (result === "") out += "event: end\r\ndata: \r\n\r\n";
      for (let i = 0; i < result.length; i += 4096) out += `event: ${i + 4096 >= result.length ? "end" : "chunk"}\r\ndata: ${result.slice(i, i + 4096)}\r\n\r\n`;
      response.writeHead(200, { "content-type": "text/event-stream" }).end(out);
    }
    const needSession = () => {
      if (!sid) return json(400, { detail: "X-Session-ID header is required" }), undefined;
      const session = sessions.get(sid);
      if (!session) return json(404, { detail: "Active environment not found" }), undefined;
      return session;
    };
    if (path === "/health") return json(200, { status: "ok" });
    if (path === "/list_environments") return json(200, ["arith"]);
    if (path === "/create_session") {
      const id = randomUUID();
      const out = `event: task_id\r\ndata: ${id}\r\n\r\nevent: end\r\ndata: \r\n\r\n`;
      return response.writeHead(200, { "content-type": "text/event-stream" }).end(out);
    }
    if (path === "/create") {
      if (!sid) return json(400, { detail: "X-Session-ID header is required" });
      if (sessions.has(sid)) return json(400, { detail: "Session already exists" });
      created.push(body);
      const task = body.task_spec ?? (body.split === "test" ? ARITH_TASKS[body.index] : undefined);
      if (!task) return json(400, { detail: body.split === "test" ? "Invalid index" : "Invalid split" });
      sessions.set(sid, { task, finished: false });
      return json(200, { sid });
    }
    if (path === "/delete") {
      if (sid) sessions.delete(sid);
      return json(200, { sid });
    }
    if (path === "/delete_session") return json(200, { sid });
    const match = /^\/([^/]+)\/([a-z_]+)$/.exec(path);
    if (!match || match[1]!.toLowerCase() !== "arith") return json(404, { detail: `unknown environment ${JSON.stringify(match?.[1] ?? path)}` });
    switch (match[2]) {
      case "tools":
        return json(200, { tools: TOOLS });
      case "splits":
        return json(200, [{ name: "test", type: "test" }]);
      case "num_tasks":
        return json(200, { num_tasks: ARITH_TASKS.length });
      case "prompt": {
        const session = needSession();
        if (!session) return;
        return json(200, [{ type: "text", text: `What is ${session.task.a} + ${session.task.b}? Submit the sum with the submit tool.`, detail: null }]);
      }
      case "call": {
        const session = needSession();
        if (!session) return;
        if (session.finished) return stream(JSON.stringify({ ok: false, error: "the episode is finished" }));
        if (body.name === "scratch") return stream(JSON.stringify({ ok: true, output: { blocks: [{ type: "text", text: "noted", detail: null }], metadata: null, reward: 0, finished: false } }));
        if (body.name !== "submit") return stream(JSON.stringify({ ok: false, error: `Tool ${String(body.name)} not found` }));
        const right = body.input?.answer === session.task.a + session.task.b;
        session.finished = true;
        return stream(JSON.stringify({ ok: true, output: { blocks: [{ type: "text", text: right ? "correct" : "wrong", detail: null }], metadata: null, reward: right ? 1 : 0, finished: true } }));
      }
      default:
        return json(404, { detail: "Not Found" });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    created,
    live: () => sessions.size,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
