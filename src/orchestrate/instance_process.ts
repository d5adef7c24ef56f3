// Entry point of a child process started by `gym env start --process-per-server`: builds one
// instance, listens on the port the parent chose, says "ready" over IPC, and exits with its parent.
import { readFileSync } from "node:fs";
import { listen } from "../http/server.js";
import { tuneHeap } from "./heap.js";
import { loadImplementation } from "./registry.js";
import { buildInstance, refResolver, type ChildSpec } from "./start.js";

async function main(): Promise<void> {
  tuneHeap(); // the parent checked GYM_HEAP_GROWING_PERCENT before starting any child
  const spec = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as ChildSpec;
  // The parent's IPC channel closing means the parent is gone: never outlive it.
  process.on("disconnect", () => process.exit(0));
  process.on("SIGTERM", () => process.exit(0));
  process.on("SIGINT", () => process.exit(0));
  try {
    const implementation = await loadImplementation(spec.instance.type, spec.instance.implementation, spec.instance.entrypoint);
    const { host: _h, port: _p, ...fields } = spec.instance.fields;
    const config = implementation.configSchema.parse(fields);
    const urlOf = refResolver(new Map(Object.entries(spec.urls)), new Map(Object.entries(spec.types)));
    const app = await buildInstance(implementation, { name: spec.instance.name, config, urlOf });
    await listen(app, { host: spec.host, port: spec.port });
    process.send?.({ ready: true });
  } catch (error) {
    process.send?.({ ready: false, error: error instanceof Error ? error.message : String(error) });
    process.exit(1);
  }
}

void main();
