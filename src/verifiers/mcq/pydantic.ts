// Row fields typed as NeMo Gym's pydantic models type them (lax mode), for the QA ports.
import { z } from "zod";

const TRUE = new Set(["1", "on", "t", "true", "y", "yes"]);
const FALSE = new Set(["0", "off", "f", "false", "n", "no"]);

/** A pydantic `bool` field: true/false, 0/1 (also 0.0/1.0) and the usual yes/no strings; anything else is a 422. */
export const pydanticBool = z.preprocess((v) => {
  if (typeof v === "number" && (v === 0 || v === 1)) return v === 1;
  if (typeof v === "string") {
    const s = v.trim().toLowerCase();
    if (TRUE.has(s)) return true;
    if (FALSE.has(s)) return false;
  }
  return v;
}, z.boolean());
