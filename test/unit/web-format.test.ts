/**
 * Pure pieces of the web app (web/src) that decide what a person reads: addresses in the form
 * wallets show, amounts never rounded up, errors in words, and the contrast rule that decides
 * whether Telegram's colours are used.
 */
import { Address } from "@ton/core";
import { randomBytes } from "node:crypto";
import { apiErrorFor, NetworkError } from "../../client/src/errors";
import { describeError } from "../../web/src/errors";
import { friendlyAddress, pnl, shares, shortAddress, usdt, usdtShort } from "../../web/src/format";
import { contrast } from "../../web/src/colour";

describe("web app formatting", () => {
  test("friendly addresses are exactly what @ton/core prints (non-bounceable, test flag on testnet)", () => {
    for (let i = 0; i < 50; i++) {
      const a = new Address(i % 5 === 0 ? -1 : 0, randomBytes(32));
      for (const testnet of [true, false])
        expect(friendlyAddress(a.toRawString(), testnet)).toBe(a.toString({ bounceable: false, testOnly: testnet, urlSafe: true }));
    }
    expect(friendlyAddress("not an address", true)).toBe("not an address");
    expect(shortAddress("0QABCDEFGHIJKLMNOP")).toBe("0QAB…MNOP");
  });

  test("amounts: exact, the header's short form rounded down, signed PnL", () => {
    expect(usdt("12500000")).toBe("12.50");
    expect(usdt("1")).toBe("0.000001");
    expect(usdtShort("92912868")).toBe("92.91");
    expect(usdtShort("99999")).toBe("0.09");
    expect(shares("10500000")).toBe("10.5");
    expect(pnl("422242")).toBe("+0.422242");
    expect(pnl("-350000")).toBe("-0.35");
    expect(pnl(null)).toBe("–");
  });

  test("errors in words, with the code and request id to quote", () => {
    const e = apiErrorFor({ status: 400, code: "INSUFFICIENT_BALANCE", message: "Insufficient balance", requestId: "req_1" });
    expect(describeError(e)).toEqual({
      text: "Your available balance is too low for this.",
      detail: "INSUFFICIENT_BALANCE, request req_1",
    });
    const v = apiErrorFor({
      status: 400,
      code: "VALIDATION_ERROR",
      message: "Parameters validation error!",
      fields: [{ field: "price", rule: "tick" }],
    });
    expect(describeError(v).text).toBe("Please check: price must be on the 0.01 grid between 0.01 and 0.99.");
    expect(describeError(apiErrorFor({ status: 429, code: "RATE_LIMIT_EXCEEDED", message: "Too many", retryAfter: 17 }))).toMatchObject({
      text: "Too many requests.",
      retryAfter: 17,
    });
    expect(describeError(apiErrorFor({ status: 400, code: "SOMETHING_NEW", message: "Said by the server" })).text).toBe(
      "Said by the server",
    );
    expect(describeError(new NetworkError("down")).text).toMatch(/cannot be reached/);
  });

  test("WCAG contrast ratio", () => {
    expect(contrast("#000000", "#ffffff")).toBeCloseTo(21, 5);
    expect(contrast("#ffffff", "#ffffff")).toBe(1);
    // Telegram's night theme: page text passes AA, its button pair does not.
    expect(contrast("#f5f5f5", "#17212b")).toBeGreaterThan(4.5);
    expect(contrast("#ffffff", "#5288c1")).toBeLessThan(4.5);
  });
});
