// Reading multichallenge's judge reply, as NeMo Gym's `_extract_verdict` does (07d6b0d,
// resources_servers/multichallenge/app.py): whichever of the yes / no labels occurs LAST wins; with
// neither, the reply's last line (stripped, upper-cased) decides: "YES" anywhere in it is YES, else
// "NO" anywhere in it is NO, else NO.
import { pyStrip } from "../../verifiers/text/pystr.js";

export type Verdict = "YES" | "NO";

export function extractVerdict(text: string, yesLabel: string, noLabel: string): Verdict {
  const yes = text.lastIndexOf(yesLabel);
  const no = text.lastIndexOf(noLabel);
  if (yes < 0 && no < 0) {
    const lines = pyStrip(text).split("\n");
    const last = pyStrip(lines[lines.length - 1]!).toUpperCase();
    if (last.includes("YES")) return "YES";
    return "NO";
  }
  return yes > no ? "YES" : "NO";
}
