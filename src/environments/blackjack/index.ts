// blackjack: NeMo Gym's Blackjack on the Gymnasium-style contract (NVIDIA-NeMo/Gym 07d6b0d
// resources_servers/blackjack/app.py), played by gymnasium_agent. `reset` deals two cards to the
// player and two to the dealer and shows the player's hand and the dealer's first card; each `step`
// reads `<action>hit</action>` or `<action>stand</action>` from the model's text (anything else
// stands). A hit that goes over 21 ends the episode with -1; a stand lets the dealer draw to 17 or more
// and ends it with +1 (dealer bust or player higher), 0 (equal) or -1.
//
// The cards are random (NeMo Gym deals from an unseeded random.Random()), unless the row carries a
// `deck`: the ranks to deal, in dealing order (player, player, dealer's up card, dealer's hole card,
// then every card drawn after), random again once it runs out. That is how recorded games replay.
import { z } from "zod";
import { outputText } from "../../protocol/index.js";
import { defineEnvironment } from "../../environment_kit/define.js";
import { RequestValidationError } from "../../http/errors.js";
import { decisionOf, formatHand, handValue, randomRank, RANKS } from "./cards.js";

const Hand = z.object({
  player: z.array(z.string()),
  dealer: z.array(z.string()),
  /** What is left of the row's `deck`, dealt before any random card. */
  deck: z.array(z.string()),
});
type Hand = z.infer<typeof Hand>;

const PROMPT = "Respond with <action>hit</action> or <action>stand</action>.";

/** The row's `deck`, checked: absent (random cards) or a list of ranks. A bad deck is the row's fault: 422. */
function deckOf(metadata: Record<string, unknown>): string[] {
  const deck = metadata.deck;
  if (deck === undefined || deck === null) return [];
  if (!Array.isArray(deck) || !deck.every((card) => typeof card === "string" && (RANKS as readonly string[]).includes(card))) {
    throw new RequestValidationError([
      { type: "value_error", loc: ["body", "deck"], msg: `deck must be a list of card ranks (${RANKS.join(", ")}), dealt in order`, input: deck },
    ]);
  }
  return [...(deck as string[])];
}

function deal(metadata: Record<string, unknown>): Hand {
  const hand: Hand = { player: [], dealer: [], deck: deckOf(metadata) };
  hand.player.push(draw(hand), draw(hand));
  hand.dealer.push(draw(hand), draw(hand));
  return hand;
}

function draw(hand: Hand): string {
  return hand.deck.shift() ?? randomRank();
}

function observationOf(hand: Hand, value = handValue(hand.player)): string {
  return `Your hand: ${formatHand(hand.player)} = ${value}\nDealer shows: ${hand.dealer[0]}\n${PROMPT}`;
}

export default defineEnvironment({
  id: "blackjack",
  description: "Blackjack. Model hits or stands. Reward +1 win, 0 draw, -1 loss/bust.",
  state: Hand,
  reset: (metadata, ctx) => {
    const hand = deal(metadata);
    ctx.sessions.set(ctx.sessionId, hand);
    return { observation: observationOf(hand), info: {} };
  },
  step: (action, metadata, ctx) => {
    // No hand in the session (no /reset, or the episode already ended): one is dealt first, as /reset
    // would, and the action plays on it (NeMo Gym errors on a hit there).
    const hand = ctx.sessions.get(ctx.sessionId) ?? deal(metadata);
    ctx.sessions.set(ctx.sessionId, hand);
    if (decisionOf(outputText(action)) === "hit") {
      hand.player.push(draw(hand));
      const value = handValue(hand.player);
      if (value > 21) return { observation: null, reward: -1.0, terminated: true, truncated: false, info: { result: "bust", player: formatHand(hand.player), value } };
      return { observation: observationOf(hand, value), reward: 0.0, terminated: false, truncated: false, info: {} };
    }
    while (handValue(hand.dealer) < 17) hand.dealer.push(draw(hand));
    const playerValue = handValue(hand.player);
    const dealerValue = handValue(hand.dealer);
    const [reward, result] = dealerValue > 21 || playerValue > dealerValue ? [1.0, "win"] : playerValue === dealerValue ? [0.0, "draw"] : [-1.0, "loss"];
    return {
      observation: null,
      reward,
      terminated: true,
      truncated: false,
      info: { result, player: formatHand(hand.player), player_value: playerValue, dealer: formatHand(hand.dealer), dealer_value: dealerValue },
    };
  },
});
