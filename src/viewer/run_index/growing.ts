// The index of a run that is still being written (`gym view` on a live run, `gym eval run --view`):
// the same columns as build.ts, kept growable per file, extended by reading only the bytes appended
// since the last look. Only whole lines are indexed — a last line without its newline yet is left
// for the next look — so a row half-written by the collector is never reported as malformed. A file
// that shrank, was replaced (another inode) or no longer ends where the index stopped at a newline
// was rewritten, not appended to: `update` says so and the caller starts a new index.
//
// Each look costs a stat per file; a look that finds new lines copies the columns into a new
// `BuiltIndex` (about 40 bytes per line) and merges the new entries into the display order (one
// pass), so a snapshot never shares arrays with the next one.
import { closeSync, existsSync, fstatSync, openSync, readSync, statSync } from "node:fs";
import { readLines, type ScannedLine } from "../../collect/line_scan.js";
import type { siblingPaths } from "../../collect/paths.js";
import { Interner } from "../columns.js";
import { countForAgent, countPairs, fieldsOf, MALFORMED_NAMED, newColumns, type BuiltIndex } from "./build.js";
import { FAILURE, TERMINAL, parseObject, type AgentStats, type Entries, type FileReport, type MalformedLine } from "./entries.js";
import { indexPlanned, type Planned } from "./planned.js";
import { displayOrder } from "./query.js";

/** What a look at the files found. */
export type GrowthCheck = "unchanged" | "grown" | "rewritten";

type Columns = ReturnType<typeof newColumns>;

/** One file's indexed prefix: the byte after its last indexed newline, and lines counted up to there. */
interface Tail {
  path: string;
  isFailure: boolean;
  position: number;
  lineNo: number;
  ino: number;
  lines: number;
  columns: Columns;
}

function concat<T extends Float64Array | Uint32Array | Uint16Array | Uint8Array>(a: T, b: T, make: (n: number) => T): T {
  const out = make(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

export class GrowingIndex {
  private readonly agents = new Interner(65536, "(other agents)");
  private readonly failureClasses = new Interner(65536, "(other classes)");
  private readonly agentStats: AgentStats[] = [];
  private readonly malformed: MalformedLine[] = [];
  private malformedCount = 0;
  private readonly rollouts: Tail;
  private readonly failures: Tail;
  private planned: Planned | undefined;
  private plannedStamp = "";
  private plannedReport: FileReport;
  /** The display order of the last snapshot, and how many rollout lines it had (failure ids follow them). */
  private order = new Uint32Array(0);
  private orderSuccesses = 0;
  private snapshot: BuiltIndex | undefined;

  constructor(private readonly paths: ReturnType<typeof siblingPaths>) {
    const tail = (path: string, isFailure: boolean): Tail => ({ path, isFailure, position: 0, lineNo: 0, ino: -1, lines: 0, columns: newColumns() });
    this.rollouts = tail(paths.output, false);
    this.failures = tail(paths.failures, true);
    this.plannedReport = { path: paths.materialized, present: false, bytes: 0, lines: 0 };
    // The failure-class id 0 means "none", as in build.ts.
    this.failureClasses.id("");
  }

  /** Reads what was appended since the last call (the first call reads the files whole). */
  update(): GrowthCheck {
    let grown = false;
    for (const tail of [this.rollouts, this.failures]) {
      const check = this.extend(tail);
      if (check === "rewritten") return check;
      grown ||= check === "grown";
    }
    const stamp = existsSync(this.paths.materialized) ? `${statSync(this.paths.materialized).size}:${statSync(this.paths.materialized).mtimeMs}` : "";
    if (stamp !== this.plannedStamp) {
      this.plannedStamp = stamp;
      this.plannedReport = { path: this.paths.materialized, present: stamp !== "", bytes: stamp ? statSync(this.paths.materialized).size : 0, lines: 0 };
      // A plan is written whole before the run starts; one being rewritten reads as it is now.
      this.planned = indexPlanned(this.plannedReport, () => {});
      grown = true;
    }
    if (grown || !this.snapshot) this.snapshot = this.build();
    return grown ? "grown" : "unchanged";
  }

  /** The index as of the last `update`. */
  get built(): BuiltIndex {
    return (this.snapshot ??= this.build());
  }

  private reportMalformed(file: string, line: number, reason: string): void {
    this.malformedCount++;
    if (this.malformed.length < MALFORMED_NAMED) this.malformed.push({ file, line, reason });
  }

  private extend(tail: Tail): GrowthCheck {
    if (!existsSync(tail.path)) return tail.ino === -1 ? "unchanged" : "rewritten";
    const fd = openSync(tail.path, "r");
    try {
      const stat = fstatSync(fd);
      if (tail.ino !== -1 && stat.ino !== tail.ino) return "rewritten";
      if (stat.size < tail.position) return "rewritten";
      if (tail.position > 0) {
        const last = Buffer.alloc(1);
        readSync(fd, last, 0, 1, tail.position - 1);
        if (last[0] !== 0x0a) return "rewritten";
      }
      tail.ino = stat.ino;
      if (stat.size === tail.position) return "unchanged";
      const before = tail.lines;
      // Whole lines only, up to the size seen now; a partial last line waits for the next look.
      const lines = readLines(fd, { from: tail.position, size: stat.size, lineNo: tail.lineNo });
      let next = lines.next();
      for (; !next.done; next = lines.next()) this.add(tail, next.value);
      tail.position = next.value.position;
      tail.lineNo = next.value.lineNo;
      return tail.lines > before ? "grown" : "unchanged";
    } finally {
      closeSync(fd);
    }
  }

  private add(tail: Tail, scanned: ScannedLine): void {
    const row = parseObject(scanned.text);
    const fields = typeof row === "string" ? row : fieldsOf(row, scanned.line, tail.isFailure);
    if (typeof fields === "string") {
      this.reportMalformed(tail.path, scanned.line, fields);
      return;
    }
    const c = tail.columns;
    const agent = this.agents.id(fields.agent);
    c.offset.push(scanned.offset);
    c.length.push(scanned.length);
    c.line.push(scanned.line);
    c.task.push(fields.task);
    c.rollout.push(fields.rollout);
    c.agent.push(agent);
    c.reward.push(fields.reward);
    c.attempt.push(fields.attempt);
    c.failureClass.push(tail.isFailure ? this.failureClasses.id(fields.failureClass) : 0);
    c.flags.push((tail.isFailure ? FAILURE : 0) | (fields.terminal ? TERMINAL : 0));
    countForAgent(this.agentStats, agent, this.agents.names[agent]!, tail.isFailure, fields.reward);
    tail.lines++;
  }

  private build(): BuiltIndex {
    const r = this.rollouts.columns;
    const f = this.failures.columns;
    const successes = r.offset.length;
    const entries: Entries = {
      count: successes + f.offset.length,
      successes,
      offset: concat(r.offset.view(), f.offset.view(), (n) => new Float64Array(n)),
      length: concat(r.length.view(), f.length.view(), (n) => new Uint32Array(n)),
      line: concat(r.line.view(), f.line.view(), (n) => new Uint32Array(n)),
      task: concat(r.task.view(), f.task.view(), (n) => new Uint32Array(n)),
      rollout: concat(r.rollout.view(), f.rollout.view(), (n) => new Uint32Array(n)),
      agent: concat(r.agent.view(), f.agent.view(), (n) => new Uint16Array(n)),
      reward: concat(r.reward.view(), f.reward.view(), (n) => new Float64Array(n)),
      attempt: concat(r.attempt.view(), f.attempt.view(), (n) => new Uint16Array(n)),
      failureClass: concat(r.failureClass.view(), f.failureClass.view(), (n) => new Uint16Array(n)),
      flags: concat(r.flags.view(), f.flags.view(), (n) => new Uint8Array(n)),
    };
    const order = this.mergeOrder(entries);
    const report = (tail: Tail): FileReport => ({ path: tail.path, present: tail.ino !== -1, bytes: tail.position, lines: tail.lines });
    return {
      files: { rollouts: report(this.rollouts), failures: report(this.failures), materialized: { ...this.plannedReport, lines: this.planned?.keys.length ?? 0 } },
      entries,
      order,
      // Names only ever get added, so sharing the tables with earlier snapshots is safe; the counts are copied.
      agents: this.agents,
      failureClasses: this.failureClasses,
      agentStats: this.agentStats.map((stats) => ({ ...stats })),
      malformed: this.malformed.slice(),
      malformedCount: this.malformedCount,
      planned: this.planned,
      pairs: countPairs(entries, order, this.planned),
    };
  }

  /** The previous display order with failure ids moved past the new rollout lines, merged with the new entries sorted. */
  private mergeOrder(e: Entries): Uint32Array {
    const compare = displayOrder(e);
    const oldSuccesses = this.orderSuccesses;
    const shift = e.successes - oldSuccesses;
    const old = this.order;
    const oldFailures = old.length - oldSuccesses;
    const added: number[] = [];
    for (let id = oldSuccesses; id < e.successes; id++) added.push(id);
    for (let id = e.successes + oldFailures; id < e.count; id++) added.push(id);
    added.sort(compare);
    const order = new Uint32Array(e.count);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < old.length || j < added.length) {
      const a = i < old.length ? (old[i]! >= oldSuccesses ? old[i]! + shift : old[i]!) : -1;
      if (a >= 0 && (j >= added.length || compare(a, added[j]!) <= 0)) {
        order[k++] = a;
        i++;
      } else order[k++] = added[j++]!;
    }
    this.order = order;
    this.orderSuccesses = e.successes;
    return order;
  }
}
