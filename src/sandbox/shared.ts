// The process-wide sandbox environments and tools share: one probe, one set of slots, so the
// number of sandboxed programs running at once stays bounded by the cores however many
// environments are loaded.
import { Sandbox } from "./runner.js";

let shared: Promise<Sandbox> | null = null;

export function sharedSandbox(): Promise<Sandbox> {
  shared ??= Sandbox.create().catch((error: unknown) => {
    // Let a later call probe again (bubblewrap may have been installed meanwhile).
    shared = null;
    throw error;
  });
  return shared;
}
