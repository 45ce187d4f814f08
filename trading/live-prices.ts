import { formatTick } from "../engine/money";
import type { LivePrice } from "../models/catalog";
import type { TopOfBook } from "../models/trading";

const ceilTick = (num: bigint, den: bigint) => Number((num * 100n + den - 1n) / den);
const floorTick = (num: bigint, den: bigint) => Number((num * 100n) / den);
const better = (a: number | null, b: number | null, pick: (x: number, y: number) => number) =>
  a === null ? b : b === null ? a : pick(a, b);
const clampTick = (t: number | null) => (t === null ? null : Math.min(99, Math.max(1, t)));

/**
 * The four prices a trader sees, from both venues: the best book price or the pool's marginal
 * price (rounded against the trader to a cent), whichever is better; null where neither trades.
 */
export function livePrices(top: TopOfBook | undefined): LivePrice {
  const yesBid = top?.yesBid ?? null;
  const yesAsk = top?.yesAsk ?? null;
  let ammBuyYes: number | null = null;
  let ammSellYes: number | null = null;
  let ammBuyNo: number | null = null;
  let ammSellNo: number | null = null;
  if (top?.ammYes) {
    const num = BigInt(top.ammYes.num);
    const den = BigInt(top.ammYes.den);
    ammBuyYes = clampTick(ceilTick(num, den));
    ammSellYes = clampTick(floorTick(num, den));
    ammBuyNo = clampTick(ceilTick(den - num, den));
    ammSellNo = clampTick(floorTick(den - num, den));
  }
  const fmt = (t: number | null) => (t === null ? null : formatTick(t));
  return {
    buyYesPrice: fmt(better(yesAsk, ammBuyYes, Math.min)),
    sellYesPrice: fmt(better(yesBid, ammSellYes, Math.max)),
    buyNoPrice: fmt(better(yesBid === null ? null : 100 - yesBid, ammBuyNo, Math.min)),
    sellNoPrice: fmt(better(yesAsk === null ? null : 100 - yesAsk, ammSellNo, Math.max)),
  };
}
