// The start-up probe: which isolation layers this machine gives us, tried for real (a trivial
// program is run through the whole chain), with the reason for every layer we do not get.
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { detectCgroups, type CgroupLayer } from "./cgroup.js";
import { launch, type Machine, type Slot } from "./launch.js";
import { seccompFilter } from "./seccomp.js";
import { resolveLimits } from "./types.js";

export type Layer = "bwrap" | "seccomp" | "uid" | "cgroup" | "rlimit";

export interface ProbeReport {
  /** Layers in the order they are reported: bwrap, seccomp, uid, cgroup, rlimit. */
  layers: Layer[];
  /** Why each missing layer is missing. */
  missing: Partial<Record<Layer, string>>;
  bash: string | null;
  bwrap: string | null;
  seccomp: Buffer | null;
  cgroups: CgroupLayer | null;
}

export interface ProbeOptions {
  disable?: Array<"bwrap" | "seccomp" | "uid" | "cgroup">;
}

export function findExecutable(name: string, candidates: string[] = []): string | null {
  const dirs = (process.env.PATH ?? "").split(delimiter).filter(Boolean);
  for (const path of [...candidates, ...dirs.map((dir) => join(dir, name))]) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // Try the next one.
    }
  }
  return null;
}

export async function probe(options: ProbeOptions, probeSlot: (cgroups: CgroupLayer | null, uid: boolean) => Slot): Promise<ProbeReport> {
  const disabled = new Set(options.disable ?? []);
  const missing: ProbeReport["missing"] = {};
  const bash = findExecutable("bash", ["/bin/bash", "/usr/bin/bash"]);

  const isRoot = process.getuid?.() === 0;
  const useUid = isRoot && !disabled.has("uid");
  if (!useUid) missing.uid = disabled.has("uid") ? "disabled" : "not running as root, so runs cannot get a uid of their own";

  let cgroups: CgroupLayer | null = null;
  if (disabled.has("cgroup")) missing.cgroup = "disabled";
  else if (!isRoot) missing.cgroup = "not running as root";
  else {
    const found = detectCgroups();
    if ("layer" in found) {
      cgroups = found.layer;
      cgroups.sweepStale();
    } else missing.cgroup = found.error;
  }

  let bwrap: string | null = null;
  let seccomp: Buffer | null = disabled.has("seccomp") ? null : seccompFilter();
  if (!bash) missing.bwrap = "bash is not installed (the launcher needs it)";
  else if (disabled.has("bwrap")) missing.bwrap = "disabled";
  else {
    const path = findExecutable("bwrap", ["/usr/bin/bwrap"]);
    if (!path) missing.bwrap = "bubblewrap is not installed (apt-get install -y bubblewrap)";
    else {
      const slot = probeSlot(cgroups, useUid);
      let problem = await tryBwrap({ bash, bwrap: path, seccomp, isolation: "probe" }, slot);
      if (problem && seccomp) {
        // Perhaps only the filter is refused: keep bwrap without it.
        const withoutFilter = await tryBwrap({ bash, bwrap: path, seccomp: null, isolation: "probe" }, slot);
        if (!withoutFilter) {
          missing.seccomp = `bwrap refused the filter: ${problem}`;
          seccomp = null;
          problem = null;
        }
      }
      if (problem) missing.bwrap = `bubblewrap does not work here: ${problem}`;
      else bwrap = path;
    }
  }
  if (!bwrap) seccomp = null;
  if (!seccomp) missing.seccomp ??= disabled.has("seccomp") ? "disabled" : bwrap ? `no filter for this architecture (${process.arch})` : "needs bwrap";

  const layers: Layer[] = [];
  if (bwrap) layers.push("bwrap");
  if (seccomp) layers.push("seccomp");
  if (useUid) layers.push("uid");
  if (cgroups) layers.push("cgroup");
  layers.push("rlimit");
  return { layers, missing, bash, bwrap, seccomp, cgroups };
}

/** Runs `true` through the full chain; returns what went wrong, or null. */
async function tryBwrap(machine: Machine, slot: Slot): Promise<string | null> {
  const launched = launch(machine, slot, { argv: ["/bin/true"], files: {}, limits: resolveLimits({ wallMs: 10_000 }), env: {} });
  let stderr = "";
  launched.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  launched.stdin.end();
  const timer = setTimeout(() => launched.kill(), 10_000);
  const exit = await new Promise<{ code: number | null; error?: Error }>((resolve) => {
    launched.child.once("error", (error) => resolve({ code: null, error }));
    launched.child.once("exit", (code) => resolve({ code }));
  });
  clearTimeout(timer);
  await launched.cleanUp();
  if (exit.error) return exit.error.message;
  const status = await launched.bwrapStatus;
  if (exit.code === 0 && status.started) return null;
  return stderr.trim() || `exit code ${exit.code}`;
}
