// Format instructions (IFEval's detectable_format / detectable_content / combination / startend /
// punctuation families, and IFEvalG's wrapping checks).
import { splitIntoSentences } from "../text/ifeval_util.js";
import { pyFindall, pyReSplit, pySearch } from "../text/pyregex.js";
import { pyLen, pyLstrip, pyRstrip, pySplit, pyStrip } from "../text/pystr.js";
import { instruction, numberArg, stringArg } from "./instruction.js";
import { pyJsonLoads } from "./python_json.js";

const CONSTRAINED_RESPONSES = ["My answer is yes.", "My answer is no.", "My answer is maybe."];

function removePrefix(s: string, prefix: string): string {
  return s.startsWith(prefix) ? s.slice(prefix.length) : s;
}

function removeSuffix(s: string, suffix: string): string {
  return suffix !== "" && s.endsWith(suffix) ? s.slice(0, -suffix.length) : s;
}

export const FORMAT_INSTRUCTIONS = {
  "detectable_content:number_placeholders": instruction(["num_placeholders"], (kw) => {
    const n = numberArg(kw, "num_placeholders");
    return (text) => pyFindall(String.raw`\[.*?\]`, text).length >= n;
  }),
  "detectable_content:postscript": instruction(["postscript_marker"], (kw) => {
    const marker = pyStrip(stringArg(kw, "postscript_marker"));
    const pattern =
      marker === "P.P.S"
        ? String.raw`\s*p\.\s?p\.\s?s.*$`
        : marker === "P.S."
          ? String.raw`\s*p\.\s?s\..*$`
          : String.raw`\s*` + marker.toLowerCase() + ".*$";
    return (text) => pyFindall(pattern, text.toLowerCase(), { multiline: true }).length > 0;
  }),
  "detectable_format:number_bullet_lists": instruction(["num_bullets"], (kw) => {
    const n = numberArg(kw, "num_bullets");
    return (text) => {
      // `*` bullets and `-` bullets; a `---` rule is a `-` line too, as in IFEval.
      const stars = pyFindall(String.raw`^\s*\*[^\*].*$`, text, { multiline: true }).length;
      const dashes = pyFindall(String.raw`^\s*-.*$`, text, { multiline: true }).length;
      return stars + dashes === n;
    };
  }),
  "detectable_format:constrained_response": instruction([], () => (text) => {
    const value = pyStrip(text);
    return CONSTRAINED_RESPONSES.some((response) => value.includes(response));
  }),
  "detectable_format:number_highlighted_sections": instruction(["num_highlights"], (kw) => {
    const n = numberArg(kw, "num_highlights");
    return (text) => {
      let count = 0;
      for (const h of pyFindall(String.raw`\*[^\n\*]*\*`, text) as string[]) if (pyStrip(pyStrip(h, "*")) !== "") count++;
      for (const h of pyFindall(String.raw`\*\*[^\n\*]*\*\*`, text) as string[]) {
        if (pyStrip(removeSuffix(removePrefix(h, "**"), "**")) !== "") count++;
      }
      return count >= n;
    };
  }),
  "detectable_format:multiple_sections": instruction(["section_spliter", "num_sections"], (kw) => {
    const spliter = pyStrip(stringArg(kw, "section_spliter"));
    const n = numberArg(kw, "num_sections");
    return (text) => pyReSplit(String.raw`\s?` + spliter + String.raw`\s?\d+\s?`, text).length - 1 >= n;
  }),
  "detectable_format:json_format": instruction([], () => (text) => {
    let value = pyStrip(text);
    for (const prefix of ["```json", "```Json", "```JSON", "```"]) value = removePrefix(value, prefix);
    value = pyStrip(removeSuffix(value, "```"));
    return pyJsonLoads(value);
  }),
  "detectable_format:title": instruction([], () => (text) =>
    (pyFindall("<<[^\\n]+>>", text) as string[]).some((title) => pyStrip(pyRstrip(pyLstrip(title, "<"), ">")) !== ""),
  ),
  "detectable_format:sentence_hyphens": instruction([], () => (text) => {
    const gold = splitIntoSentences(text.split("-").join(" "));
    const pieces = text.split("-");
    // zip(): the shorter list decides how many pairs are compared.
    for (let i = 0; i < Math.min(pieces.length, gold.length); i++) {
      const piece = pieces[i]!;
      if (pyStrip(piece) !== piece || piece !== gold[i]) return false;
    }
    return true;
  }),
  "detectable_format:square_brackets": instruction([], () => (text) => pySplit(text).every((word) => word.startsWith("[") && word.endsWith("]"))),
  "detectable_format:bigram_wrapping": instruction([], () => (text) => {
    const words = pySplit(text);
    for (let i = 0; i + 1 < words.length; i += 2) {
      if (!(words[i]!.startsWith("<<") && words[i + 1]!.endsWith(">>"))) return false;
    }
    return true;
  }),
  "combination:two_responses": instruction([], () => (text) => {
    const responses = text.split("******");
    const valid: string[] = [];
    for (let i = 0; i < responses.length; i++) {
      const response = responses[i]!;
      if (pyStrip(response) === "") {
        if (i !== 0 && i !== responses.length - 1) return false;
      } else {
        valid.push(response);
      }
    }
    return valid.length === 2 && pyStrip(valid[0]!) !== pyStrip(valid[1]!);
  }),
  "combination:repeat_prompt": instruction(["prompt_to_repeat"], (kw) => {
    const prompt = pyStrip(stringArg(kw, "prompt_to_repeat")).toLowerCase();
    return (text) => pyStrip(text).toLowerCase().startsWith(prompt);
  }),
  "startend:end_checker": instruction(["end_phrase"], (kw) => {
    const phrase = pyStrip(stringArg(kw, "end_phrase")).toLowerCase();
    return (text) => pyStrip(pyStrip(text), '"').toLowerCase().endsWith(phrase);
  }),
  "startend:quotation": instruction([], () => (text) => {
    const value = pyStrip(text);
    return pyLen(value) > 1 && value.startsWith('"') && value.endsWith('"');
  }),
  "punctuation:no_comma": instruction([], () => (text) => pySearch(String.raw`\,`, text) === null),
  "punctuation:punctuation_dot": instruction([], () => (text) => pySearch(String.raw`\.`, text) === null),
  "punctuation:punctuation_exclamation": instruction([], () => (text) => pySearch(String.raw`\!`, text) === null),
};
