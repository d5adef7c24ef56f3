// `<think>…</think>` reasoning inside message text, as reasoning models emit it when the engine
// runs no reasoning parser. Kept byte-exact: wrapping the parts back gives the original text.

export const THINK_OPEN = "<think>";
export const THINK_CLOSE = "</think>";

export function wrapThink(reasoning: string): string {
  return `${THINK_OPEN}${reasoning}${THINK_CLOSE}`;
}

/**
 * Splits text into reasoning blocks and the remaining answer text. Handles the three shapes seen
 * in practice: whole `<think>…</think>` blocks; a leading `…</think>` whose opening tag was in the
 * prompt (chat templates that open the think block for the model); and a `<think>…` left open
 * because generation stopped at the token limit.
 */
export function splitThink(content: string): { reasoning: string[]; text: string } {
  const reasoning: string[] = [];
  let rest = content;
  const firstClose = rest.indexOf(THINK_CLOSE);
  const firstOpen = rest.indexOf(THINK_OPEN);
  if (firstClose !== -1 && (firstOpen === -1 || firstClose < firstOpen)) {
    reasoning.push(rest.slice(0, firstClose));
    rest = rest.slice(firstClose + THINK_CLOSE.length);
  }
  let text = "";
  while (true) {
    const open = rest.indexOf(THINK_OPEN);
    if (open === -1) break;
    text += rest.slice(0, open);
    const close = rest.indexOf(THINK_CLOSE, open + THINK_OPEN.length);
    if (close === -1) {
      reasoning.push(rest.slice(open + THINK_OPEN.length));
      rest = "";
      break;
    }
    reasoning.push(rest.slice(open + THINK_OPEN.length, close));
    rest = rest.slice(close + THINK_CLOSE.length);
  }
  return { reasoning, text: text + rest };
}
