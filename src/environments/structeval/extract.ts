// Which part of a StructEval answer is the document (NeMo Gym 07d6b0d structeval, after StructEval's
// render_utils): HTML-escaped angle brackets restored, an empty think block dropped, Python's
// `unicode_escape` decoding applied (kept only when it succeeds, as upstream's try/except does),
// then the payload of a <|BEGIN_CODE|>…<|END_CODE|> block or of a ``` fence (either closing marker
// optional), with a second scan for a fence that takes precedence; else the whole text, stripped.
import { decodeUnicodeEscape } from "../../verifiers/structured/index.js";
import { pySearch } from "../../verifiers/text/pyregex.js";
import { pyStrip } from "../../verifiers/text/pystr.js";

/** Python's `re.escape`: every character but letters, digits and "_" escaped. */
function reEscape(text: string): string {
  return Array.from(text, (c) => (/^[\p{L}\p{N}_]$/u.test(c) ? c : `\\${c}`)).join("");
}

/** The text as upstream prepares it before looking for the code block. */
export function prepareText(text: string): string {
  let prepared = text.replaceAll("&lt;", "<").replaceAll("&gt;", ">");
  prepared = prepared.replaceAll("<think>\n\n</think>\n\n", "");
  try {
    prepared = decodeUnicodeEscape(prepared);
  } catch {
    // Upstream swallows a decoding failure and keeps the text as it was.
  }
  return prepared;
}

export function extractCode(answer: string, outputType: string): string {
  const text = prepareText(answer);
  const beginEnd = "<\\|BEGIN_CODE\\|\\>[ \\t]*\\n?(?P<payload1>.*?)(?:<\\|END_CODE\\|\\>|$)";
  const fence = `\`\`\`(?:${reEscape(outputType)}|[^\\n]*)[ \\t]*\\n(?P<payload2>.*?)(?:\`\`\`|$)`;
  const flags = { dotAll: true, ignoreCase: true };
  const first = pySearch(`(?:${beginEnd})|(?:${fence})`, text, flags);
  let code = first ? pyStrip(first.groups?.payload1 || first.groups?.payload2 || "") : pyStrip(text);
  const second = pySearch(fence, text, flags);
  if (second) code = pyStrip(second.groups?.payload2 ?? "");
  return code;
}
