// The retry counters of one run, across every process it involves: this one's (the collector's
// `/run` calls, and in the default one-process layout every server's calls too) plus those of the
// other processes the servers run in (`--process-per-server`, or a head started elsewhere), each
// asked once per process at `GET /retries`. Counters live as long as their process, so a run counts
// what grew since its start. The limit: counters are per process, not per client, so with `--no-serve`
// the retries of anyone else using the same servers during the run (another collector, a trainer
// through `gym serve`) are counted too; and a server that is not Gymkit's (no `GET /retries`) is
// reported as uncounted, not guessed. The same reply carries each process's `--concurrency auto`
// limits as they stand, which the live line shows next to this process's own, and where they
// settled, which the end-of-run summary shows.
import type { LimitNow, SettledLimit } from "../http/adaptive_limit.js";
import { addRetryStats, emptyRetryStats, retryStats, retryStatsSince, RETRIES_PATH, type RetryStats } from "../http/retry_stats.js";
import { callJson, joinUrl, NO_RETRY } from "../http/client.js";

interface Located {
  url: string | null;
  /** Null or absent when the head does not say (NeMo Gym's records may leave it out). */
  pid?: number | null;
}

/** One server per process other than this one: each process's counters cover all its servers. */
function otherProcesses(instances: readonly Located[]): string[] {
  const seen = new Map<number, string>();
  for (const instance of instances) {
    if (instance.url === null || typeof instance.pid !== "number" || instance.pid <= 0 || instance.pid === process.pid) continue;
    if (!seen.has(instance.pid)) seen.set(instance.pid, instance.url);
  }
  return [...seen.values()];
}

interface Fetched {
  stats: RetryStats | undefined;
  limits: LimitNow[];
  settled: SettledLimit[];
}

const isLimit = (v: unknown): v is LimitNow => typeof v === "object" && v !== null && typeof (v as LimitNow).name === "string" && Number.isFinite((v as LimitNow).limit);
const isSettled = (v: unknown): v is SettledLimit =>
  typeof v === "object" && v !== null && typeof (v as SettledLimit).name === "string" && [(v as SettledLimit).mean, (v as SettledLimit).low, (v as SettledLimit).high].every(Number.isFinite);

async function fetchStats(url: string): Promise<Fetched> {
  try {
    const reply = await callJson<{ retries?: RetryStats; limits?: unknown; settled?: unknown }>(joinUrl(url, RETRIES_PATH), { retry: NO_RETRY, timeoutMs: 5_000 });
    const limits = Array.isArray(reply.limits) ? reply.limits.filter(isLimit).map(({ name, limit }) => ({ name, limit })) : [];
    const settled = Array.isArray(reply.settled) ? reply.settled.filter(isSettled).map(({ name, mean, low, high }) => ({ name, mean, low, high })) : [];
    return { stats: reply.retries ? addRetryStats(emptyRetryStats(), reply.retries) : undefined, limits, settled };
  } catch {
    // A server that does not serve the counters (not Gymkit's, or gone): it is named in `uncounted`.
    return { stats: undefined, limits: [], settled: [] };
  }
}

export class RunRetries {
  private readonly localStart = retryStats();
  private remote = emptyRetryStats();
  /** Processes whose counters could not be read at the last refresh. */
  uncounted = 0;
  /** The other processes' adaptive limits at the last refresh (in the order of `urls`). */
  limits: LimitNow[] = [];
  /** … and where they had settled by then. */
  settled: SettledLimit[] = [];

  private constructor(
    private readonly urls: string[],
    private readonly remoteStart: Array<RetryStats | undefined>,
  ) {}

  /** Takes the baseline now, before the run's first call. */
  static async start(instances: readonly Located[]): Promise<RunRetries> {
    const urls = otherProcesses(instances);
    const fetched = await Promise.all(urls.map(fetchStats));
    const run = new RunRetries(urls, fetched.map((f) => f.stats));
    run.limits = fetched.flatMap((f) => f.limits);
    run.settled = fetched.flatMap((f) => f.settled);
    return run;
  }

  /** Asks the other processes again; `current` includes what they said. */
  async refresh(): Promise<void> {
    const fetched = await Promise.all(this.urls.map(fetchStats));
    const total = emptyRetryStats();
    let uncounted = 0;
    this.limits = fetched.flatMap((f) => f.limits);
    this.settled = fetched.flatMap((f) => f.settled);
    fetched.forEach(({ stats }, i) => {
      const start = this.remoteStart[i];
      if (!stats || !start) uncounted++;
      else addRetryStats(total, retryStatsSince(stats, start));
    });
    this.remote = total;
    this.uncounted = uncounted;
  }

  /** This run's retries so far: this process's live counters plus the others' as last refreshed. */
  current(): RetryStats {
    return addRetryStats(retryStatsSince(retryStats(), this.localStart), this.remote);
  }

  /** Whether other processes are involved (so `refresh` has anything to do). */
  get remoteProcesses(): number {
    return this.urls.length;
  }
}
