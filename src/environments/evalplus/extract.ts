// NeMo Gym's `extract_code_strict` for evalplus (07d6b0d; NeMo-Skills' strict last-fence rule): carriage
// returns dropped, the last "```python" (else the last "```") opens the code, the next "```" closes
// it, the code is stripped; no closing fence means no code.
import { pyStrip } from "../../verifiers/text/pystr.js";

export function extractCodeStrict(completion: string, language = "python"): string {
  const text = completion.replaceAll("\r", "");
  const specific = "```" + language;
  let start = text.lastIndexOf(specific);
  let fenceLength = specific.length;
  if (start < 0) {
    start = text.lastIndexOf("```");
    fenceLength = 3;
  }
  if (start < 0) return "";
  const rest = text.slice(start + fenceLength);
  const end = rest.indexOf("```");
  return end < 0 ? "" : pyStrip(rest.slice(0, end));
}
