// The reward-hack audit as a CI gate (issue 21): every built-in environment that needs no live
// judge or downloaded data (those with a separate download run on the stand-in data their own tests
// use, as their audit.yaml says), first example row, a light battery — each must earn no probe reward
// above its floor (chance + what its audit.yaml declares, with the reason). A new or changed
// environment that rewards a null or adversarial policy fails here, naming the environment, probe
// and row. Judged environments run as in `gym env audit`: the scripted_model plays the policy and
// the judge. Real servers on 127.0.0.1, all in this process (src/audit/run.ts); no CLI spawn.
import { afterAll, describe, expect, it } from "vitest";
import { PROBES } from "../src/audit/probes.js";
import { auditEnvironment, errorsOf, failuresOf } from "../src/audit/run.js";
import { auditResolver } from "../src/cli/env_audit.js";
import { closeDispatcher } from "../src/http/client.js";
import { builtinIds, PROTOCOL_DRIVERS } from "../src/orchestrate/registry.js";

/** Environments the gate cannot run on a clean checkout, and why. */
const NOT_GATED: Record<string, string> = {
  openenv_remote: "a protocol driver for a remote OpenEnv server, not an environment with example rows",
  ors_remote: "a protocol driver for a remote ORS server, not an environment with example rows",
};

/**
 * Known weaknesses not yet examined (none today): a probe listed here for an environment is skipped so
 * the gate still catches every other cell, and shows as FAIL in docs/audit.md. Remove an entry when its
 * environment gets a fix, a `strict` option plus a floor with its reason, or hints that remove a probe artefact.
 */
const PENDING_FIX: Record<string, string[]> = {};

// The two costly probes (1,000 tool calls; a 1 MB answer) stay out of the gate: test/audit.test.ts
// plays them through a sound verifier, and docs/audit.md runs them on every environment.
const COSTLY = new Set(["tool.flood", "null.nonsense_1mb"]);
const GATE_PROBES = PROBES.filter((p) => !COSTLY.has(p.name));
const GATED = builtinIds("resources_servers").filter((id) => !PROTOCOL_DRIVERS.has(id) && !(id in NOT_GATED));
const resolve = auditResolver();

afterAll(async () => {
  await closeDispatcher();
});

describe("reward-hack audit gate: every built-in environment, first row, light battery", () => {
  it("covers the whole catalog but the environments it names as not gated", () => {
    expect(GATED.length).toBeGreaterThan(50);
    for (const id of Object.keys(NOT_GATED)) expect(builtinIds("resources_servers")).toContain(id);
    for (const id of Object.keys(PENDING_FIX)) expect(GATED).toContain(id);
  });

  it.each(GATED)("%s rewards no probe above its floor", async (id) => {
    const audit = await auditEnvironment({ id }, { rows: 1, probes: GATE_PROBES, resolve, concurrency: 4 });
    expect(audit.error).toBeUndefined();
    expect(audit.cells.length).toBe(GATE_PROBES.length);
    const pending = new Set(PENDING_FIX[id] ?? []);
    const above = failuresOf(audit).filter((line) => !pending.has(line.slice(id.length + 2).split(" ")[0]!));
    expect(above).toEqual([]);
    // A probe whose rollouts failed (a crash, a sandbox timeout, a judge that gave no verdict) was not
    // measured: it fails the gate too.
    expect(errorsOf(audit)).toEqual([]);
    // The positive control (the gold, written the way the environment asks) earns the full reward:
    // with a failing control, every other probe's 0 proves nothing about the environment.
    const control = audit.cells.find((c) => c.probe === "control.gold");
    if (control && control.ran > 0) expect({ id, control: control.meanReward }).toEqual({ id, control: 1 });
  }, 60_000);
});
