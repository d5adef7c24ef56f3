// The pieces behind `gym`'s data-safety refusals, on real files: when two paths are one file, how
// lines are counted for the message, and what a plan fingerprint says differs.
import { linkSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkWritableFile, ensureParentFolder } from "../config/file_errors.js";
import { differences, fingerprintOf, isRepeatsExtension } from "./fingerprint.js";
import { countLines, refuseFinishedResults, sameFileHow } from "./output_guard.js";

const dir = mkdtempSync(join(tmpdir(), "gym-guard-"));
const file = join(dir, "a.jsonl");
writeFileSync(file, '{"x":1}\n{"x":2}\n');

describe("sameFileHow", () => {
  it("finds one file behind a symlink, a hard link and a ../ spelling; not a copy or a missing path", () => {
    symlinkSync(file, join(dir, "sym.jsonl"));
    linkSync(file, join(dir, "hard.jsonl"));
    writeFileSync(join(dir, "copy.jsonl"), '{"x":1}\n{"x":2}\n');
    expect(sameFileHow(join(dir, "sym.jsonl"), file)).toContain("symbolic link");
    expect(sameFileHow(join(dir, "hard.jsonl"), file)).toContain("hard link");
    expect(sameFileHow(join(dir, "..", dir.split("/").pop()!, "a.jsonl"), file)).toBeDefined();
    expect(sameFileHow(join(dir, "copy.jsonl"), file)).toBeUndefined();
    expect(sameFileHow(join(dir, "missing.jsonl"), file)).toBeUndefined();
  });
});

describe("countLines and refuseFinishedResults", () => {
  it("counts a last line without a newline; an empty file is no result", () => {
    const torn = join(dir, "torn.jsonl");
    writeFileSync(torn, "a\nb\nc");
    expect(countLines(torn)).toBe(3);
    expect(countLines(file)).toBe(2);
    const empty = join(dir, "empty.jsonl");
    writeFileSync(empty, "");
    expect(() => refuseFinishedResults([empty], { resumable: true })).not.toThrow();
    expect(() => refuseFinishedResults([torn], { resumable: true })).toThrow(/holds 3 lines.*--resume.*--overwrite/);
    expect(() => refuseFinishedResults([torn], { resumable: false, overwrite: true })).not.toThrow();
  });
});

describe("file checks", () => {
  it("creates missing folders one level at a time and names a regular file in the way", () => {
    ensureParentFolder(join(dir, "x", "y", "z.jsonl"));
    expect(() => checkWritableFile(join(dir, "x", "y", "z.jsonl"))).not.toThrow();
    expect(() => checkWritableFile(join(file, "z.jsonl"))).toThrow(`${file}/ is a regular file, not a folder`);
    expect(() => ensureParentFolder(join(file, "q", "z.jsonl"))).toThrow(/cannot write/);
  });
});

describe("plan fingerprints", () => {
  const settings = { num_repeats: 2, limit: undefined, agent_name: "a" };
  const planned = fingerprintOf("eval run", file, settings);

  it("the same input and settings differ in nothing, whatever the key order", () => {
    expect(differences(planned, fingerprintOf("eval run", join(dir, "hard.jsonl"), { agent_name: "a", num_repeats: 2 }))).toEqual([]);
  });

  it("names each change as old → new", () => {
    const other = join(dir, "other.jsonl");
    writeFileSync(other, '{"x":3}\n');
    const changed = differences(planned, fingerprintOf("eval run", other, { ...settings, limit: 4 }));
    expect(changed).toHaveLength(2);
    expect(changed[0]).toMatch(/^input: .*a\.jsonl .*→ .*other\.jsonl/);
    expect(changed[1]).toBe("limit: (not set) → 4");
  });

  it("more repeats (a number, or a map that only grows) is an extension; fewer is not", () => {
    expect(isRepeatsExtension(planned, fingerprintOf("eval run", file, { ...settings, num_repeats: 3 }))).toBe(true);
    expect(isRepeatsExtension(planned, fingerprintOf("eval run", file, { ...settings, num_repeats: 1 }))).toBe(false);
    const map = fingerprintOf("eval run", file, { ...settings, num_repeats: { a: 2, _default: 1 } });
    expect(isRepeatsExtension(map, fingerprintOf("eval run", file, { ...settings, num_repeats: { a: 4, _default: 1 } }))).toBe(true);
    expect(isRepeatsExtension(map, fingerprintOf("eval run", file, { ...settings, num_repeats: { a: 4, _default: 1 }, limit: 2 }))).toBe(false);
  });
});
