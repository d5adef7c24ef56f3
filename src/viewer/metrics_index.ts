// The aggregate metrics file (`<stem>_aggregate_metrics.json`): a JSON list with one entry per agent,
// each holding a `group_level_metrics` list with one entry per task — hundreds of MB for a run of a
// million tasks. One streaming pass over its bytes keeps each agent's entry without that list, and of
// the list only where each task's entry is (byte range, task, agent); a task's entries are read back
// when the task is shown.
import { closeSync, existsSync, openSync, readSync } from "node:fs";
import { readAt } from "../collect/line_scan.js";
import { float64Column, uint16Column, uint32Column } from "./columns.js";
import { NO_AGENT, lowerBound } from "./run_index/entries.js";

export interface AgentMetrics {
  name: string;
  /** The agent's entry (agent_ref, agent_metrics, key_metrics, …) without `group_level_metrics`. */
  entry: Record<string, unknown>;
}

export interface GroupMetrics {
  agent: string;
  metrics: Record<string, unknown>;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const GROUP_KEY = "group_level_metrics";
const TASK_FIELD = /"_ng_task_index"\s*:\s*(\d+)/;
/** Agents per file; group entries store the agent's position in a Uint16. */
const MAX_AGENTS = 65535;

interface Groups {
  task: Uint32Array;
  agent: Uint16Array;
  offset: Float64Array;
  length: Uint32Array;
}

export class MetricsIndex {
  readonly present: boolean;
  readonly agents: AgentMetrics[] = [];
  /** Why the file could not be read whole (what was read before stays usable). */
  error: string | undefined;
  private fd: number | undefined;
  /** Group entries sorted by (task, agent). */
  private groups: Groups = { task: new Uint32Array(0), agent: new Uint16Array(0), offset: new Float64Array(0), length: new Uint32Array(0) };

  constructor(readonly path: string) {
    this.present = existsSync(path);
    if (!this.present) return;
    this.fd = openSync(path, "r");
    try {
      this.scan(this.fd);
    } catch (error) {
      this.error = `${path}: ${(error as Error).message}`;
    }
  }

  get groupCount(): number {
    return this.groups.task.length;
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** The group-level metrics of one task, one entry per agent that has them. */
  groupMetrics(task: number): GroupMetrics[] {
    const { groups, fd } = this;
    if (fd === undefined) return [];
    const out: GroupMetrics[] = [];
    for (let i = lowerBound(groups.task.length, (j) => groups.task[j]! < task); i < groups.task.length && groups.task[i] === task; i++) {
      try {
        const metrics = JSON.parse(readAt(fd, groups.offset[i]!, groups.length[i]!).toString("utf8")) as Record<string, unknown>;
        out.push({ agent: this.agents[groups.agent[i]!]?.name ?? NO_AGENT, metrics });
      } catch {
        // The file changed since it was indexed; show what still reads.
      }
    }
    return out;
  }

  /**
   * Walks the JSON structure byte by byte (strings and nesting only; values are parsed where they
   * are kept). Depth 1 is the list, 2 an agent entry, 3 its group list, 4 one task's entry.
   */
  private scan(fd: number): void {
    const block = Buffer.alloc(1 << 20);
    const task = uint32Column();
    const agent = uint16Column();
    const offset = float64Column();
    const length = uint32Column();
    let depth = 0;
    let inString = false;
    let escaped = false;
    let stringStart = 0;
    let lastKey: string | undefined; // the last string directly inside an agent entry: the key of what follows
    let agentStart = -1;
    let listStart = -1;
    let listEnd = -1;
    let elementStart = -1;
    let inList = false;
    let position = 0;
    const text = (start: number, end: number) =>
      start >= position ? block.toString("utf8", start - position, end - position) : readAt(fd, start, end - start).toString("utf8");

    try {
      for (;;) {
        const n = readSync(fd, block, 0, block.length, position);
        if (n === 0) break;
        for (let i = 0; i < n; i++) {
          const c = block[i]!;
          if (inString) {
            if (escaped) escaped = false;
            else if (c === BACKSLASH) escaped = true;
            else if (c === QUOTE) {
              inString = false;
              const at = position + i;
              if (depth === 2) lastKey = at - stringStart <= GROUP_KEY.length + 1 ? text(stringStart + 1, at) : undefined;
            }
            continue;
          }
          if (c === QUOTE) {
            inString = true;
            stringStart = position + i;
          } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
            depth++;
            const at = position + i;
            if (depth === 1 && c !== OPEN_BRACKET) throw new Error("expected a JSON list of per-agent entries");
            if (depth === 2 && c === OPEN_BRACE) agentStart = at;
            else if (depth === 3 && c === OPEN_BRACKET && agentStart >= 0 && lastKey === GROUP_KEY) {
              inList = true;
              listStart = at;
            } else if (depth === 4 && inList && c === OPEN_BRACE) elementStart = at;
          } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
            const end = position + i + 1;
            if (depth === 4 && elementStart >= 0) {
              const taskIndex = TASK_FIELD.exec(text(elementStart, end))?.[1];
              if (taskIndex !== undefined && this.agents.length < MAX_AGENTS) {
                task.push(Number(taskIndex));
                agent.push(this.agents.length); // the entry being read is pushed when it closes
                offset.push(elementStart);
                length.push(end - elementStart);
              }
              elementStart = -1;
            } else if (depth === 3 && inList) {
              inList = false;
              listEnd = end;
            } else if (depth === 2 && agentStart >= 0) {
              this.addAgent(listStart >= 0 ? `${text(agentStart, listStart)}[]${text(listEnd, end)}` : text(agentStart, end));
              agentStart = listStart = listEnd = -1;
            }
            depth--;
            if (depth < 0) throw new Error("unbalanced brackets");
          }
        }
        position += n;
      }
    } finally {
      // Whatever was read before an error stays usable.
      this.groups = sortedGroups(task.seal(), agent.seal(), offset.seal(), length.seal());
    }
    if (position === 0) throw new Error("the file is empty");
    if (depth !== 0 || inString) throw new Error("the file ends in the middle of its JSON (cut short?)");
  }

  private addAgent(json: string): void {
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(json) as Record<string, unknown>;
    } catch (error) {
      throw new Error(`agent entry ${this.agents.length + 1} is not valid JSON (${(error as Error).message})`, { cause: error });
    }
    delete entry[GROUP_KEY];
    const ref = entry.agent_ref as { name?: unknown } | undefined;
    this.agents.push({ name: typeof ref?.name === "string" && ref.name ? ref.name : NO_AGENT, entry });
  }
}

function sortedGroups(task: Uint32Array, agent: Uint16Array, offset: Float64Array, length: Uint32Array): Groups {
  let sorted = true;
  for (let i = 1; i < task.length && sorted; i++) sorted = task[i - 1]! < task[i]! || (task[i - 1] === task[i] && agent[i - 1]! <= agent[i]!);
  if (sorted) return { task, agent, offset, length };
  // Written agent by agent, so tasks repeat once per agent: order by task for lookups.
  const order = Uint32Array.from(task.keys()).sort((a, b) => task[a]! - task[b]! || agent[a]! - agent[b]!);
  return {
    task: Uint32Array.from(order, (i) => task[i]!),
    agent: Uint16Array.from(order, (i) => agent[i]!),
    offset: Float64Array.from(order, (i) => offset[i]!),
    length: Uint32Array.from(order, (i) => length[i]!),
  };
}
