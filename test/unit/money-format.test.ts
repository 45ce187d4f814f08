import { createHash } from "node:crypto";
import { canonicalMicroString, formatMicro, microToUnits } from "../../engine/money";
import { conditionIdFor } from "../../catalog/condition";

describe("micro-unit formatting", () => {
  test.each([
    [0, "0"],
    [1, "0.000001"],
    [10, "0.00001"],
    [1_000_000, "1"],
    [1_234_500_000, "1234.5"],
    [999_999, "0.999999"],
    [-2_500_000, "-2.5"],
    ["9007199254740993", "9007199254.740993"],
  ])("%p -> %p", (micro, text) => {
    expect(formatMicro(micro)).toBe(text);
  });

  test("exact beyond float precision", () => {
    expect(formatMicro(123456789012345678901234567890n)).toBe("123456789012345678901234.56789");
  });

  test("canonical amount strings", () => {
    expect(canonicalMicroString("0007")).toBe("7");
    expect(canonicalMicroString("0")).toBe("0");
    expect(() => canonicalMicroString("1.5")).toThrow();
    expect(() => canonicalMicroString("-1")).toThrow();
  });

  test("display numbers", () => {
    expect(microToUnits(1_234_500_000)).toBe(1234.5);
    expect(microToUnits(1)).toBe(0.000001);
  });
});

describe("conditionId", () => {
  test("is 0x + sha256 of pmx:condition:<marketId>:2", () => {
    const id = conditionIdFor("mkt_abc");
    expect(id).toBe("0x" + createHash("sha256").update("pmx:condition:mkt_abc:2").digest("hex"));
    expect(id).toMatch(/^0x[0-9a-f]{64}$/);
  });
  test("deterministic and distinct per market", () => {
    expect(conditionIdFor("mkt_1")).toBe(conditionIdFor("mkt_1"));
    expect(conditionIdFor("mkt_1")).not.toBe(conditionIdFor("mkt_2"));
  });
});
