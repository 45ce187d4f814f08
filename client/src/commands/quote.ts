import { needLogin, print, type Command } from "../terminal/command";
import { quoteLine } from "../terminal/lines";
import { outcomeOf, pos, sharesToMicro, sideOf } from "../terminal/options";

export const quote: Command = {
  name: "quote",
  usage: "quote <marketId> <buy|sell> <YES|NO> <shares>",
  summary: "what a market order would cost now",
  async run(ctx) {
    const [id, side, outcome, q] = [
      pos(ctx, 0, "market id"),
      sideOf(pos(ctx, 1, "side")),
      outcomeOf(pos(ctx, 2, "outcome")),
      sharesToMicro(pos(ctx, 3, "shares")),
    ];
    const quote = await needLogin(ctx).markets.quote(id, { side, outcome, quantity: q.toString() });
    print(ctx, () => quoteLine(side, outcome, q, quote), quote);
  },
};
