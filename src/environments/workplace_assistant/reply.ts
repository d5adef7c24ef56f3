// A tool call over HTTP, as NVIDIA-NeMo/Gym 07d6b0d workplace_assistant app.py answers it: the body's
// non-null fields are the keyword arguments, the reply is `{"output": result}`, and a failing call
// answers `{"output": "Error executing tool '<name>': <error>"}` so the model can correct itself.
import { pyMessage } from "./email.js";
import { PyFloat, pyFloatText } from "./py.js";
import type { Workbench } from "./workbench.js";

/** The reply as FastAPI writes it (compact, non-ASCII kept): floats as Python spells them, NaN cells as null. */
function dumps(value: unknown): string {
  if (value instanceof PyFloat) return Number.isFinite(value.value) ? pyFloatText(value.value) : "null";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "null";
  if (Array.isArray(value)) return `[${value.map(dumps).join(",")}]`;
  if (value !== null && typeof value === "object") return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${dumps(v)}`).join(",")}}`;
  return JSON.stringify(value ?? null);
}

export function toolReply(bench: Workbench, name: string, body: unknown): string {
  const fields = body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const kwargs = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null));
  let output: unknown;
  try {
    output = bench.call(name, kwargs);
  } catch (error) {
    output = `Error executing tool '${name}': ${pyMessage(error)}`;
  }
  return dumps({ output });
}
