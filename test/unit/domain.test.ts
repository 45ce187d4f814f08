import { listenHost, proofDomain } from "../../auth/domain";

describe("proof domain from the listening address", () => {
  test("wildcard and loopback binds are localhost:<port>", () => {
    for (const address of ["0.0.0.0", "::", "127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]) {
      expect(listenHost({ address, family: address.includes(":") ? "IPv6" : "IPv4", port: 4123 })).toBe("localhost:4123");
    }
  });

  test("another address is itself (IPv6 in brackets); port 80 is left out as a URL host leaves it out", () => {
    expect(listenHost({ address: "10.1.2.3", family: "IPv4", port: 3000 })).toBe("10.1.2.3:3000");
    expect(listenHost({ address: "fd00::5", family: "IPv6", port: 3000 })).toBe("[fd00::5]:3000");
    expect(listenHost({ address: "0.0.0.0", family: "IPv4", port: 80 })).toBe("localhost");
  });

  test("APP_DOMAIN wins over the address", () => {
    expect(proofDomain("exchange.example", { address: "0.0.0.0", family: "IPv4", port: 3000 })).toBe("exchange.example");
    expect(proofDomain(undefined, { address: "0.0.0.0", family: "IPv4", port: 3001 })).toBe("localhost:3001");
    expect(proofDomain(undefined, null)).toBeUndefined();
  });
});
