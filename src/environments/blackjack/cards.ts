// Blackjack's cards and the model's action, as NeMo Gym's blackjack (NVIDIA-NeMo/Gym 07d6b0d
// resources_servers/blackjack/app.py) defines them: an infinite shoe of the 13 ranks (every card is a
// uniform draw of a rank, suits play no part), aces 11 or 1, the action in `<action>` tags.
import { randomInt } from "node:crypto";

export const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"] as const;

/** A uniform draw of a rank, as NeMo Gym's `random.Random().choice(_RANKS)` (unseeded: fresh entropy). */
export function randomRank(): string {
  return RANKS[randomInt(RANKS.length)]!;
}

/** Face cards 10, aces 11 each, then aces down to 1 one at a time while the hand is over 21. */
export function handValue(hand: readonly string[]): number {
  let total = 0;
  for (const rank of hand) total += rank === "J" || rank === "Q" || rank === "K" ? 10 : rank === "A" ? 11 : Number.parseInt(rank, 10);
  let aces = hand.filter((rank) => rank === "A").length;
  while (total > 21 && aces > 0) {
    total -= 10;
    aces -= 1;
  }
  return total;
}

/** `[8, 5, 3]`, as NeMo Gym prints a hand. */
export function formatHand(hand: readonly string[]): string {
  return `[${hand.join(", ")}]`;
}

// NeMo Gym's `re.search(r"<action>\s*(hit|stand)\s*</action>", text, re.IGNORECASE)` on a str: Python's
// `\s` is str.isspace() whitespace and IGNORECASE also matches İ/ı for i and ſ for s. Spelled out so the
// first match is the same one Python finds.
const WS = "[\\t\\n\\v\\f\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const I = "[iI\\u0130\\u0131]";
const TAG = `[aA][cC][tT]${I}[oO][nN]`;
const ACTION = new RegExp(`<${TAG}>${WS}*([hH]${I}[tT]|[sS\\u017f][tT][aA][nN][dD])${WS}*</${TAG}>`);

/**
 * The model's decision: `hit` only when the first action tag says hit (lower-cased as Python does, so
 * `hıt` is not hit); anything else, including no tag or an unknown action, stands.
 */
export function decisionOf(text: string): "hit" | "stand" {
  const match = ACTION.exec(text);
  return match !== null && match[1]!.toLowerCase() === "hit" ? "hit" : "stand";
}
