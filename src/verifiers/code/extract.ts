// LiveCodeBench's code extraction: the lines strictly between the last two lines that contain a
// ``` fence anywhere (the language tag does not matter). Fewer than two fence lines, or nothing
// between them, means there is no code.

export function extractCode(text: string): string | null {
  const lines = text.split("\n");
  const fences: number[] = [];
  lines.forEach((line, i) => {
    if (line.includes("```")) fences.push(i);
  });
  if (fences.length < 2) return null;
  const code = lines.slice(fences[fences.length - 2]! + 1, fences[fences.length - 1]).join("\n");
  // An empty block is "no code", as Python's `if not code` treats it.
  return code === "" ? null : code;
}
