// Unit tests of the collector's pieces: repeats maps, shards, pair keys, torn lines, failure classes.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CallError } from "../src/http/client.js";
import { classifyFailure, DeadlineError, ReportedFailure } from "../src/collect/scheduler.js";
import { repairTornLine, readLedger } from "../src/collect/ledger.js";
import { KeyList, pairKey, pairOf, pairOfLine, resultLine } from "../src/collect/lines.js";
import { parseRepeatsSpec, parseShard, resolveRepeats } from "../src/collect/plan.js";
import { DEFAULT_HEAP_GROWING_PERCENT, tuneHeap } from "../src/orchestrate/heap.js";

const tmp = () => mkdtempSync(join(tmpdir(), "gym-units-"));

describe("repeats", () => {
  it("parses integers and JSON or YAML-flow maps", () => {
    expect(parseRepeatsSpec("4")).toBe(4);
    expect(parseRepeatsSpec(undefined)).toBe(1);
    expect(parseRepeatsSpec('{"a": 32, "_default": 1}')).toEqual({ a: 32, _default: 1 });
    expect(parseRepeatsSpec("{a: 32, _default: 1}")).toEqual({ a: 32, _default: 1 });
    expect(parseRepeatsSpec({ a: 2 })).toEqual({ a: 2 });
  });

  it("reports every bad value together", () => {
    expect(() => parseRepeatsSpec("0")).toThrow(/whole number ≥ 1/);
    expect(() => parseRepeatsSpec('{"a": 0, "b": 1.5, "c": 2}')).toThrow(/a=0, b=1.5/);
  });

  it("names every agent a map misses, warns once about unused keys, and falls back to _default", () => {
    expect(() => resolveRepeats({ a: 2 }, new Set(["a", "b", "c"]))).toThrow(/"b", "c"/);
    const { repeatsOf, warnings } = resolveRepeats({ a: 2, ghost: 3, _default: 5 }, new Set(["a", "b"]));
    expect([repeatsOf("a"), repeatsOf("b")]).toEqual([2, 5]);
    expect(warnings).toEqual(['num_repeats key(s) "ghost" match no input row\'s agent']);
  });
});

describe("shards", () => {
  it("parses I/N and rejects out-of-range shards", () => {
    expect(parseShard("1/4")).toEqual({ index: 1, count: 4 });
    expect(parseShard(undefined)).toBeUndefined();
    for (const bad of ["4/4", "a/b", "1/0", "-1/2"]) expect(() => parseShard(bad)).toThrow(/--shard must be I\/N/);
  });
});

describe("pair keys and result lines", () => {
  it("round-trips pairs and finds them on our lines without parsing, and on foreign lines by parsing", () => {
    expect(pairOf(pairKey(123456, 789))).toEqual([123456, 789]);
    const line = resultLine(3, 7, { reward: 1, _ng_task_index: 99, nested: { a: [1] } });
    expect(line.startsWith('{"_ng_task_index":3,"_ng_rollout_index":7,')).toBe(true);
    expect(JSON.parse(line)).toEqual({ _ng_task_index: 3, _ng_rollout_index: 7, reward: 1, nested: { a: [1] } });
    expect(pairOfLine(line)).toEqual([3, 7]);
    expect(pairOfLine('{"reward": 1, "_ng_rollout_index": 2, "_ng_task_index": 5}')).toEqual([5, 2]);
    expect(pairOfLine("not json")).toBeUndefined();
    expect(resultLine(0, 0, {})).toBe('{"_ng_task_index":0,"_ng_rollout_index":0}\n');
  });

  it("KeyList counts keys and finds duplicates after unsorted pushes", () => {
    const list = new KeyList();
    for (const k of [5, 1, 5, 3, 2000, 1]) list.push(k);
    expect([list.count(5), list.count(1), list.count(4), list.count(2000)]).toEqual([2, 2, 0, 1]);
    expect(list.duplicates()).toEqual([1, 5]);
  });
});

describe("torn lines", () => {
  it("cuts a last line without a newline and leaves whole files alone", () => {
    const dir = tmp();
    const file = join(dir, "out.jsonl");
    writeFileSync(file, '{"a":1}\n{"b":2}\n{"c":');
    expect(repairTornLine(file)).toBe(5);
    expect(readFileSync(file, "utf8")).toBe('{"a":1}\n{"b":2}\n');
    expect(repairTornLine(file)).toBe(0);
    writeFileSync(file, "no newline at all");
    expect(repairTornLine(file)).toBe(17);
    expect(readFileSync(file, "utf8")).toBe("");
    expect(repairTornLine(join(dir, "absent.jsonl"))).toBe(0);
  });

  it("reads the latest failure per pair from the attempt log", async () => {
    const dir = tmp();
    const out = join(dir, "o.jsonl");
    const failures = join(dir, "f.jsonl");
    writeFileSync(out, resultLine(0, 0, { reward: 1 }) + resultLine(0, 0, { reward: 1 }));
    writeFileSync(
      failures,
      resultLine(1, 0, { _ng_attempt_index: 0, _ng_failure_class: "timeout", _ng_failure_terminal: false }) +
        resultLine(1, 0, { _ng_attempt_index: 1, _ng_failure_class: "invalid_request", _ng_failure_terminal: true }),
    );
    const ledger = await readLedger(out, failures);
    expect(ledger.successes.duplicates()).toEqual([pairKey(0, 0)]);
    expect(ledger.failures.get(pairKey(1, 0))).toEqual({ attempt: 1, terminal: true, failureClass: "invalid_request" });
  });
});

describe("classifyFailure", () => {
  it("classifies transport, status, reported and deadline failures; 4xx is terminal", () => {
    expect(classifyFailure(new CallError("x", "u", "timeout"))).toMatchObject({ failureClass: "timeout", terminal: false });
    expect(classifyFailure(new CallError("x", "u", "connection"))).toMatchObject({ failureClass: "agent_error", terminal: false });
    expect(classifyFailure(new CallError("x", "u", "status", 502, '{"detail":"m","failure_class":"model_error"}'))).toMatchObject({ failureClass: "model_error", terminal: false, status: 502 });
    expect(classifyFailure(new CallError("x", "u", "status", 422, '{"detail":[]}'))).toMatchObject({ failureClass: "invalid_request", terminal: true });
    expect(classifyFailure(new CallError("x", "u", "status", 429, ""))).toMatchObject({ failureClass: "agent_error", terminal: false });
    expect(classifyFailure(new ReportedFailure("judge_failed", "judge down"))).toMatchObject({ failureClass: "judge_failed", terminal: false });
    expect(classifyFailure(new DeadlineError(5000))).toMatchObject({ failureClass: "timeout", message: "rollout deadline of 5 s passed" });
  });
});

describe("scanLines", () => {
  it("yields every non-blank line with its byte offset and line number, across block boundaries and long lines", async () => {
    const { scanLines, readAt } = await import("../src/collect/line_scan.js");
    const { openSync, closeSync } = await import("node:fs");
    const dir = tmp();
    const file = join(dir, "lines.jsonl");
    const lines = ["a", "", "ééé", "x".repeat(50), "", "tail without newline"];
    writeFileSync(file, lines.join("\n"));
    for (const block of [4, 7, 1 << 20]) {
      const seen = [...scanLines(file, block)];
      expect(seen.map((l) => [l.text, l.line])).toEqual([
        ["a", 1],
        ["ééé", 3],
        ["x".repeat(50), 4],
        ["tail without newline", 6],
      ]);
      const fd = openSync(file, "r");
      for (const l of seen) expect(readAt(fd, l.offset, l.length).toString("utf8")).toBe(l.text);
      closeSync(fd);
    }
  });

  it("resumes: whole lines from a byte and line count up to a size, a partial last line left for the next pass", async () => {
    const { readLines } = await import("../src/collect/line_scan.js");
    const { openSync, closeSync, appendFileSync } = await import("node:fs");
    const file = join(tmp(), "growing.jsonl");
    writeFileSync(file, "one\n\ntwo\nthr");
    const drain = (fd: number, from: number, lineNo: number, size: number, blockSize: number) => {
      const lines = readLines(fd, { from, size, lineNo, blockSize });
      const seen: Array<[string, number, number]> = [];
      let next = lines.next();
      for (; !next.done; next = lines.next()) seen.push([next.value.text, next.value.line, next.value.offset]);
      return { seen, end: next.value };
    };
    for (const block of [2, 1 << 20]) {
      let fd = openSync(file, "r");
      const first = drain(fd, 0, 0, 12, block);
      closeSync(fd);
      expect(first.seen).toEqual([
        ["one", 1, 0],
        ["two", 3, 5],
      ]);
      expect(first.end).toEqual({ position: 9, lineNo: 3 });
      appendFileSync(file, block === 2 ? "ee\nfour\n" : "");
      fd = openSync(file, "r");
      const second = drain(fd, first.end.position, first.end.lineNo, 20, block);
      closeSync(fd);
      expect(second.seen).toEqual([
        ["three", 4, 9],
        ["four", 5, 15],
      ]);
      expect(second.end).toEqual({ position: 20, lineNo: 5 });
    }
  });
});

describe("tuneHeap", () => {
  it("uses 50% by default, takes GYM_HEAP_GROWING_PERCENT (0 = V8's own), and refuses anything else", () => {
    expect(tuneHeap({})).toBe(DEFAULT_HEAP_GROWING_PERCENT);
    expect(tuneHeap({ GYM_HEAP_GROWING_PERCENT: "" })).toBe(DEFAULT_HEAP_GROWING_PERCENT);
    expect(tuneHeap({ GYM_HEAP_GROWING_PERCENT: "0" })).toBe(0);
    expect(tuneHeap({ GYM_HEAP_GROWING_PERCENT: "100" })).toBe(100);
    for (const bad of ["-5", "1.5", "lots"]) expect(() => tuneHeap({ GYM_HEAP_GROWING_PERCENT: bad })).toThrow(/whole number/);
  });
});
