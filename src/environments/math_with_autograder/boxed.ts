// The raw LaTeX inside the last balanced \boxed{...} (or, when there is no \boxed, the last \fbox{...}),
// as math_with_autograder hands it to its judge (NeMo Gym 07d6b0d, `_search_boxed`, itself NeMo
// Skills' `search_boxed`). Braces are counted from the box command; no closing brace, or a box
// command not followed directly by `{`, gives none.
export function searchBoxed(text: string): string | undefined {
  if (!text.includes("\\boxed") && !text.includes("\\fbox")) return undefined;
  let start = text.lastIndexOf("\\boxed");
  if (start < 0) start = text.lastIndexOf("\\fbox");
  let open = 0;
  let end = -1;
  for (let i = start; i < text.length; i++) {
    if (text[i] === "{") open++;
    else if (text[i] === "}") {
      open--;
      if (open === 0) {
        end = i;
        break;
      }
    }
  }
  if (end < 0) return undefined;
  const box = text.slice(start, end + 1);
  for (const prefix of ["\\boxed{", "\\fbox{"]) {
    if (box.startsWith(prefix) && box.endsWith("}")) return box.slice(prefix.length, -1);
  }
  return undefined;
}
