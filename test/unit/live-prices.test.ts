import { livePrices } from "../../trading/live-prices";
import { topOfBook } from "../../trading/order-views";

describe("livePrices", () => {
  test("no book and no pool: nothing trades", () => {
    expect(livePrices(undefined)).toEqual({ buyYesPrice: null, buyNoPrice: null, sellYesPrice: null, sellNoPrice: null });
    expect(livePrices(topOfBook(undefined, null))).toEqual({ buyYesPrice: null, buyNoPrice: null, sellYesPrice: null, sellNoPrice: null });
  });

  test("the book alone: YES at its best prices, NO at their complements", () => {
    expect(livePrices({ yesBid: 40, yesAsk: 45, ammYes: null })).toEqual({
      buyYesPrice: "0.45",
      sellYesPrice: "0.40",
      buyNoPrice: "0.60",
      sellNoPrice: "0.55",
    });
  });

  test("the pool alone: its marginal price rounded against the trader to a cent", () => {
    // YES at 1/3: buy at 0.34, sell at 0.33; NO at 2/3: buy at 0.67, sell at 0.66.
    expect(livePrices({ yesBid: null, yesAsk: null, ammYes: { num: "1", den: "3" } })).toEqual({
      buyYesPrice: "0.34",
      sellYesPrice: "0.33",
      buyNoPrice: "0.67",
      sellNoPrice: "0.66",
    });
  });

  test("both venues: whichever is better for the trader", () => {
    expect(livePrices({ yesBid: 30, yesAsk: 36, ammYes: { num: "1", den: "3" } })).toEqual({
      buyYesPrice: "0.34",
      sellYesPrice: "0.33",
      buyNoPrice: "0.67",
      sellNoPrice: "0.66",
    });
    expect(livePrices({ yesBid: 34, yesAsk: 34, ammYes: { num: "1", den: "3" } })).toEqual({
      buyYesPrice: "0.34",
      sellYesPrice: "0.34",
      buyNoPrice: "0.66",
      sellNoPrice: "0.66",
    });
  });

  test("a pool price at an edge stays inside 0.01..0.99", () => {
    expect(livePrices({ yesBid: null, yesAsk: null, ammYes: { num: "1", den: "1000" } })).toEqual({
      buyYesPrice: "0.01",
      sellYesPrice: "0.01",
      buyNoPrice: "0.99",
      sellNoPrice: "0.99",
    });
  });
});
