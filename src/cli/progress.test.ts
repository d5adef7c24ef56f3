// The progress printer writing to a stream of a given width (our own component, given a stream the
// way it is given process.stderr): the live line fits the width whatever the agent names, is
// cleared before a notice and drawn again after it, and is cleared at the end; on a resume the rate
// and ETA count only this run's work.
import { describe, expect, it } from "vitest";
import type { Progress } from "../collect/collect.js";
import { emptyRetryStats } from "../http/retry_stats.js";
import { describeRetries, describeStall, formatProgress, ProgressPrinter } from "./progress.js";
import { displayWidth, fitToWidth } from "./text_width.js";

const CLEAR = "\r\x1b[2K";

class Terminal {
  text = "";
  constructor(
    public columns: number,
    public isTTY = true,
  ) {}
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
  /** What a terminal shows: `\r` + clear-line drops the current row; `\n` ends it. */
  screen(): string[] {
    const rows: string[] = [""];
    // eslint-disable-next-line no-control-regex
    for (const part of this.text.split(/(\r\x1b\[2K|\n)/)) {
      if (part === CLEAR) rows[rows.length - 1] = "";
      else if (part === "\n") rows.push("");
      else rows[rows.length - 1] += part;
    }
    return rows;
  }
}

function progress(over: Partial<Progress> = {}): Progress {
  return { done: 3, total: 10, alreadyDone: 0, failed: 0, elapsedMs: 1_000, meanReward: { simple_agent: 0.5 }, ...over };
}

describe("display width", () => {
  it("counts CJK and emoji as two columns and combining marks as none, and cuts between graphemes", () => {
    expect(displayWidth("abc")).toBe(3);
    expect(displayWidth("代理")).toBe(4);
    expect(displayWidth("🚀")).toBe(2);
    expect(displayWidth("e\u0301")).toBe(1);
    expect(displayWidth("👩‍👩‍👧")).toBe(2);
    const cut = fitToWidth("代理代理代理", 7);
    expect(cut).toBe("代理代…");
    expect(displayWidth(cut)).toBeLessThanOrEqual(7);
    expect(fitToWidth("👩‍👩‍👧👩‍👩‍👧", 3)).toBe("👩‍👩‍👧…");
    expect(fitToWidth("short", 10)).toBe("short");
  });
});

describe("ProgressPrinter on a terminal", () => {
  for (const columns of [20, 41, 80]) {
    it(`keeps the live line within ${columns} columns, with wide and control characters in agent names`, () => {
      const term = new Terminal(columns);
      const printer = new ProgressPrinter({ quiet: false, stream: term });
      const names = { "代理人_エージェント_智能体": 0.25, "🚀🚀🚀_agent": 1, "line\nbreak\x1b[31m": 0 };
      for (let done = 1; done <= 10; done++) printer.update(progress({ done, meanReward: names }));
      const rows = term.screen();
      expect(rows).toHaveLength(1);
      expect(displayWidth(rows[0]!)).toBeLessThan(columns);
      expect(rows[0]!.startsWith("[gym] 10/10")).toBe(true);
      // eslint-disable-next-line no-control-regex
      expect(rows[0]).not.toMatch(/[\x00-\x1f]/);
    });
  }

  it("uses the width the terminal has now (a resize)", () => {
    const term = new Terminal(100);
    const printer = new ProgressPrinter({ quiet: false, stream: term });
    printer.update(progress());
    term.columns = 30;
    printer.update(progress({ done: 4 }));
    expect(displayWidth(term.screen().at(-1)!)).toBeLessThan(30);
  });

  it("clears the live line before a notice, draws it again after, and clears it at the end", () => {
    const term = new Terminal(80);
    const printer = new ProgressPrinter({ quiet: false, stream: term });
    printer.update(progress({ done: 5 }));
    printer.notice("repaired out.jsonl");
    expect(term.screen()).toEqual(["gym: repaired out.jsonl", expect.stringMatching(/^\[gym\] 5\/10 rollouts/)]);
    printer.update(progress({ done: 6 }));
    printer.finish();
    expect(term.screen()).toEqual(["gym: repaired out.jsonl", ""]);
  });

  it("with --quiet draws nothing but still shows notices", () => {
    const term = new Terminal(80);
    const printer = new ProgressPrinter({ quiet: true, stream: term });
    printer.update(progress());
    printer.notice("hello");
    printer.finish();
    expect(term.text).toBe("gym: hello\n");
  });

  it("shows retried calls on the live line once there are any", () => {
    const term = new Terminal(200);
    const stats = emptyRetryStats();
    const printer = new ProgressPrinter({ quiet: false, stream: term, retries: () => stats });
    printer.update(progress());
    expect(term.screen()[0]).not.toContain("retried");
    stats["5xx"] = { retries: 1652, lost_ms: 83_000 };
    stats.connection = { retries: 3, lost_ms: 1_500 };
    printer.update(progress({ done: 4 }));
    expect(term.screen()[0]).toContain("retried 1655 (5xx 1652, connection 3; 1 min 25 s lost)");
  });
});

describe("ProgressPrinter without a terminal", () => {
  it("writes whole lines, the last one when all are done, never a carriage return", () => {
    const log = new Terminal(0, false);
    const printer = new ProgressPrinter({ quiet: false, stream: log, plainEveryMs: 60_000 });
    for (let done = 1; done <= 10; done++) printer.update(progress({ done }));
    printer.notice("a notice");
    printer.finish();
    expect(log.text).not.toContain("\r");
    const lines = log.text.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^\[gym\] 1\/10 rollouts/);
    expect(lines[1]).toMatch(/^\[gym\] 10\/10 rollouts/);
    expect(lines[2]).toBe("gym: a notice");
  });
});

describe("rate and ETA", () => {
  it("count only this run's work on a resume", () => {
    // 80 pairs were done by an earlier run; this one finished 10 more in 5 s: 2/s, 10 left → 5 s.
    const line = formatProgress(progress({ done: 90, alreadyDone: 80, total: 100, elapsedMs: 5_000 }));
    expect(line).toContain("90/100 rollouts (80 done before this run)");
    expect(line).toContain("2.0/s");
    expect(line).toContain("ETA 5 s");
    // The same numbers without a resume: 90 in 5 s.
    const fresh = formatProgress(progress({ done: 90, alreadyDone: 0, total: 100, elapsedMs: 5_000 }));
    expect(fresh).toContain("18.0/s");
    expect(fresh).toContain("ETA 1 s");
  });

  it("has no ETA before anything of this run finished", () => {
    expect(formatProgress(progress({ done: 80, alreadyDone: 80, total: 100 }))).toContain("0.0/s  ETA -");
  });
});

describe("messages", () => {
  it("a stall names how many are in flight and the oldest, with their age", () => {
    const text = describeStall({
      quietMs: 61_000,
      inFlight: 5,
      oldest: [
        { task: 3, rollout: 0, agent: "a", ageMs: 312_000 },
        { task: 7, rollout: 1, agent: "a", ageMs: 65_000 },
      ],
    });
    expect(text).toBe("no rollout finished in the last 1 min 1 s; 5 in flight, the oldest: (task 3, rollout 0, agent a, 5 min 12 s), (task 7, rollout 1, agent a, 1 min 5 s) and 3 more");
  });

  it("the summary's retry line says what the lost time is", () => {
    const stats = emptyRetryStats();
    stats["5xx"] = { retries: 1652, lost_ms: 41_300 };
    stats["429"] = { retries: 2, lost_ms: 1_000 };
    expect(describeRetries(stats)).toBe("retried 1654 calls (5xx 1652: 41 s, 429 2: 1.0 s); 42 s of call time lost to them (failed attempts and backoff)");
  });
});
