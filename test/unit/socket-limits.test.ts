import { AddressConnections } from "../../gateway/socket-limits";

describe("AddressConnections", () => {
  test("admits up to the limit per address, each address on its own, and forgets an address with nothing open", () => {
    const c = new AddressConnections(2);
    expect(c.admits("a")).toBe(true);
    c.opened("a");
    c.opened("a");
    expect(c.admits("a")).toBe(false);
    expect(c.admits("b")).toBe(true);
    c.closed("a");
    expect(c.admits("a")).toBe(true);
    expect(c.count("a")).toBe(1);
    c.closed("a");
    expect(c.addresses).toBe(0);
    expect(c.refusal()).toBe("Too many socket connections from this address (at most 2)");
  });

  test("0: no limit", () => {
    const c = new AddressConnections(0);
    for (let i = 0; i < 1000; i++) c.opened("a");
    expect(c.admits("a")).toBe(true);
  });
});
