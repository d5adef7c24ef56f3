// Entry point of a child process started by `gym env start --process-per-server`: receives its
// instance spec over IPC, builds the instance, listens on the port the parent chose, says "ready"
// over IPC, and exits with its parent. The spec holds API keys in clear, so it never touches the
// disk: a temp file would outlive a `kill -9` of the whole group.
import { listen } from "../http/server.js";
import { tuneHeap } from "./heap.js";
import { loadImplementation } from "./registry.js";
import { buildInstance, refResolver, type ChildSpec } from "./instance.js";

/** The first IPC message: `{ spec }`. */
function receiveSpec(): Promise<ChildSpec> {
  return new Promise((resolve) => {
    const onMessage = (message: { spec?: ChildSpec }) => {
      if (!message?.spec) return;
      process.off("message", onMessage);
      resolve(message.spec);
    };
    process.on("message", onMessage);
  });
}

async function main(): Promise<void> {
  tuneHeap(); // the parent checked GYM_HEAP_GROWING_PERCENT before starting any child
  // The parent's IPC channel closing means the parent is gone: never outlive it.
  process.on("disconnect", () => process.exit(0));
  process.on("SIGTERM", () => process.exit(0));
  process.on("SIGINT", () => process.exit(0));
  if (!process.send) {
    process.stderr.write("instance_process: start me with an IPC channel (gym env start --process-per-server does)\n");
    process.exit(2);
  }
  const spec = await receiveSpec();
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
