// One unprivileged uid per sandbox slot. A slot's uid is used by one run at a time, so "every process
// of this uid" is exactly "what that run left behind": RLIMIT_NPROC counts only that run, and the
// clean-up can find and kill stragglers by uid. The uid is derived from our pid, so two sandboxes in
// two live processes on one machine (parallel test workers, a server and a CLI run) never share one.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { sleep } from "../http/timing.js";

/** Far above ordinary and container sub-uid ranges; override with GYM_SANDBOX_UID_BASE. */
const DEFAULT_UID_BASE = 2 ** 30;
/** Slots per process, over all its sandboxes (run and session slots together). */
export const SLOTS_PER_PROCESS = 256;

const taken = new Set<number>();

/**
 * Reserves `count` slot numbers for one sandbox. Two sandboxes in one process must never share a
 * slot: the uid and the cgroup are the slot's, and clean-up kills everything in them.
 */
export function allocateSlots(count: number): number[] {
  const slots: number[] = [];
  for (let slot = 0; slot < SLOTS_PER_PROCESS && slots.length < count; slot++) if (!taken.has(slot)) slots.push(slot);
  if (slots.length < count) throw new Error(`no free sandbox slots: this process already uses ${taken.size} of ${SLOTS_PER_PROCESS}`);
  for (const slot of slots) taken.add(slot);
  return slots;
}

export function releaseSlots(slots: number[]): void {
  for (const slot of slots) taken.delete(slot);
}

export function uidBase(): number {
  const fromEnv = Number(process.env.GYM_SANDBOX_UID_BASE);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_UID_BASE;
}

/** The uid (and gid) of slot `slot` of this process. pid_max is at most 2^22, so this stays below 2^31. */
export function slotUid(slot: number): number {
  if (!Number.isInteger(slot) || slot < 0 || slot >= SLOTS_PER_PROCESS) throw new Error(`sandbox slot ${slot} out of range`);
  return uidBase() + process.pid * SLOTS_PER_PROCESS + slot;
}

/** Every live process owned by `uid`, found by scanning /proc. */
export function processesOfUid(uid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    try {
      if (statSync(`/proc/${entry}`).uid === uid) found.push(Number(entry));
    } catch {
      // Exited while we looked.
    }
  }
  return found;
}

/**
 * Kills everything `members()` lists until it lists nothing (a fork racing the kill can add one),
 * polling every few ms up to `timeoutMs`. True when nothing is left.
 */
export async function killUntilEmpty(listMembers: () => number[], timeoutMs = 3000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  // A zombie holds nothing and waits only for its parent (outside our control) to reap it.
  const members = () => listMembers().filter((pid) => !isZombie(pid));
  for (;;) {
    const pids = members();
    if (pids.length === 0) return true;
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
    if (Date.now() > deadline) return members().length === 0;
    await sleep(5);
  }
}

/** True for a process that has exited but not been reaped (or is gone already). */
export function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state === "Z" || state === "X";
  } catch {
    return true;
  }
}
