// Checks a response against a row's instructions, one verdict per instruction, as NeMo Gym's
// instruction_following does: ids and kwargs are paired (the shorter list wins), null-valued kwargs
// are dropped, and anything that goes wrong — an unknown id, a bad argument, an exception while
// checking — makes that one instruction "not followed" instead of failing the request.
import { INSTRUCTIONS } from "./registry.js";

export function followsInstruction(id: string, kwargs: Record<string, unknown> | null | undefined, text: string): boolean {
  const instruction = Object.hasOwn(INSTRUCTIONS, id) ? INSTRUCTIONS[id] : undefined;
  if (!instruction) return false;
  const args = Object.fromEntries(Object.entries(kwargs ?? {}).filter(([, value]) => value !== null && value !== undefined));
  try {
    return instruction.build(args).check(text) === true;
  } catch {
    return false;
  }
}

export function followInstructionList(
  ids: readonly string[],
  kwargsList: ReadonlyArray<Record<string, unknown> | null | undefined>,
  text: string,
): boolean[] {
  const n = Math.min(ids.length, kwargsList.length);
  return ids.slice(0, n).map((id, i) => followsInstruction(id, kwargsList[i], text));
}
