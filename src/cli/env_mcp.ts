// `gym env mcp`: one environment served as an MCP server over stdio (for MCP clients that launch
// their servers as commands). The environment is a NeMo Gym-protocol server already running (`gym env
// start`, or NeMo Gym's), given by URL; its episodes start from the rows of the given JSONL files.
// stdout carries only MCP messages; anything for people goes to stderr.
import { EnvironmentBridge } from "../protocols/episode.js";
import { serveMcpStdio } from "../protocols/mcp/server.js";
import { loadDatasetRows } from "../protocols/rows.js";
import { UsageError } from "./exit.js";

export async function envMcp(options: { url: string; name?: string; rows: string[] }): Promise<void> {
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw new UsageError(`--url ${options.url}: not a URL; give the environment server's http://host:port`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`--url ${options.url}: must be http(s)://host:port`);
  const rows = await loadDatasetRows(options.rows);
  if (rows.size === 0) process.stderr.write("gym env mcp: no --rows given; start_episode then needs a whole `row`\n");
  const bridge = new EnvironmentBridge({ name: options.name ?? "environment", url: options.url, rows });
  await serveMcpStdio(bridge);
}
