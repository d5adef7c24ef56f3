// `gym env status`: what the head (Gymkit's or NeMo Gym's) knows, and whether each instance answers
// its health check. The table shows what ng_status shows (instance, type, implementation, port
// within the URL, pid, uptime, health) and the URL; a field the head did not give shows as "-".
// `--json` prints each instance as Gymkit reads it (status.ts InstanceStatus: `name` is the
// instance name, `implementation` the implementation id, null where the head did not say).
import { protocolEndpoints, serverStatus } from "../orchestrate/status.js";
import { formatDuration } from "./progress.js";
import { table } from "./table.js";

const shown = (value: string | number | null): string => (value === null ? "-" : String(value));

export async function envStatus(options: { headUrl: string; json?: boolean }): Promise<void> {
  const statuses = await serverStatus(options.headUrl);
  const healthy = statuses.filter((s) => s.status === "healthy").length;
  if (options.json) {
    process.stdout.write(`${JSON.stringify(statuses, null, 2)}\n`);
  } else {
    const rows = statuses.map((s) => [
      shown(s.name),
      shown(s.server_type),
      shown(s.implementation),
      shown(s.url),
      shown(s.pid),
      s.uptime_seconds === null ? "-" : formatDuration(s.uptime_seconds * 1000),
      s.status,
    ]);
    if (rows.length > 0) process.stdout.write(`${table(["NAME", "TYPE", "IMPLEMENTATION", "URL", "PID", "UPTIME", "STATUS"], rows)}\n\n`);
    const protocols = await protocolEndpoints(options.headUrl);
    if (protocols.length > 0) process.stdout.write(`${table(["ENVIRONMENT", "PROTOCOL", "URL"], protocols.map((p) => [p.environment, p.protocol, p.url]))}\n\n`);
    process.stdout.write(`${statuses.length} servers found (${healthy} healthy, ${statuses.length - healthy} unhealthy)\n`);
  }
  if (healthy < statuses.length) process.exitCode = 1;
}
