// `gym env status`: what the head knows, and whether each instance answers its health check.
import { serverStatus } from "../orchestrate/status.js";
import { table } from "./table.js";

export async function envStatus(options: { headUrl: string; json?: boolean }): Promise<void> {
  const statuses = await serverStatus(options.headUrl);
  const healthy = statuses.filter((s) => s.status === "healthy").length;
  if (options.json) {
    process.stdout.write(`${JSON.stringify(statuses, null, 2)}\n`);
  } else {
    const rows = statuses.map((s) => [s.name, s.server_type, s.implementation, s.url, String(s.pid), s.status]);
    if (rows.length > 0) process.stdout.write(`${table(["NAME", "TYPE", "IMPLEMENTATION", "URL", "PID", "STATUS"], rows)}\n\n`);
    process.stdout.write(`${statuses.length} servers found (${healthy} healthy, ${statuses.length - healthy} unhealthy)\n`);
  }
  if (healthy < statuses.length) process.exitCode = 1;
}
