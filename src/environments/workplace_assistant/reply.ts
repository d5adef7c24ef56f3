// A tool call over HTTP, as NVIDIA-NeMo/Gym 07d6b0d workplace_assistant app.py answers it: the body's
// non-null fields are the keyword arguments, the reply is `{"output": result}`, and a failing call
// answers `{"output": "Error executing tool '<name>': <error>"}` so the model can correct itself.
import { pyMessage } from "./email.js";
import type { Workbench } from "./workbench.js";

/** Python's `json.dumps` spelling of numbers in a reply (NaN cells written as null). */
const replacer = (_key: string, value: unknown) => (typeof value === "number" && !Number.isFinite(value) ? null : value);

export function toolReply(bench: Workbench, name: string, body: unknown): string {
  const fields = body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const kwargs = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null));
  let output: unknown;
  try {
    output = bench.call(name, kwargs);
  } catch (error) {
    output = `Error executing tool '${name}': ${pyMessage(error)}`;
  }
  return JSON.stringify({ output }, replacer);
}
