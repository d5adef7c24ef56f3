// The gateway closes with WebSocket connections still open (they would otherwise hold it forever).
import { expect, it } from "vitest";
import WebSocket from "ws";
import { closeDispatcher } from "../http/client.js";
import { EnvironmentBridge } from "./episode.js";
import { startGateway } from "./gateway.js";
import { openEnvLayer } from "./openenv/server.js";
import { DatasetRows } from "./rows.js";

it("closes with sessions open, ending them", async () => {
  const bridge = new EnvironmentBridge({ name: "none", url: "http://127.0.0.1:9", rows: new DatasetRows([]) });
  const gateway = await startGateway(bridge, [openEnvLayer]);
  const socket = new WebSocket(`${gateway.url.replace(/^http/, "ws")}/openenv/ws`);
  await new Promise((resolve, reject) => socket.once("open", resolve).once("error", reject));
  const closed = new Promise((resolve) => socket.once("close", resolve));
  await gateway.close();
  await closed;
  expect(socket.readyState).toBe(WebSocket.CLOSED);
  await closeDispatcher();
});
