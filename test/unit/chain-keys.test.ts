import { Address } from "@ton/core";
import { deriveEd25519Path, keyPairFromSeed } from "@ton/crypto";
import { WalletContractV4 } from "@ton/ton";
import { derivationPath, friendlyContract, friendlyWallet, KeyRing, parseMasterSecret } from "../../chain/keys";

describe("hierarchical keys from one master secret", () => {
  test("@ton/crypto's derivation is SLIP-0010 ed25519 (official test vector 1, m/0'/1')", async () => {
    const seed = Buffer.from("000102030405060708090a0b0c0d0e0f", "hex");
    expect((await deriveEd25519Path(seed, [0])).toString("hex")).toBe("68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3");
    const k = await deriveEd25519Path(seed, [0, 1]);
    expect(k.toString("hex")).toBe("b1d0bad404bf35da785a64ca1ac54b2617211d2777696fbffaf208f746ae84f2");
    expect(keyPairFromSeed(k).publicKey.toString("hex")).toBe("1932a5270f335bed617d5b935c80aedb1a35bd9fc1e31acafd5372c30f5c1187");
  });

  test("paths: m/44'/607'/<role>'/<index>'; indices must be hardened-range integers", () => {
    expect(derivationPath("deposit", 7)).toEqual([44, 607, 0, 7]);
    expect(derivationPath("hot")).toEqual([44, 607, 1, 0]);
    expect(derivationPath("operator")).toEqual([44, 607, 2, 0]);
    expect(derivationPath("registry")).toEqual([44, 607, 3, 0]);
    for (const bad of [-1, 1.5, 2 ** 31, Number.NaN]) expect(() => derivationPath("deposit", bad)).toThrow();
  });

  test("deterministic and distinct: the same secret and index give the same v4r2 wallet, anything else another", async () => {
    const secret = "ab".repeat(32);
    const a = new KeyRing(secret);
    const b = new KeyRing(secret);
    const w0 = await a.deposit(0);
    expect((await b.deposit(0)).address.equals(w0.address)).toBe(true);
    expect(w0.address.equals(WalletContractV4.create({ workchain: 0, publicKey: w0.keyPair.publicKey }).address)).toBe(true);
    const seen = new Set<string>();
    for (let i = 0; i < 20; i++) seen.add((await a.deposit(i)).address.toRawString());
    for (const role of ["hot", "operator", "registry"] as const) seen.add((await a.wallet(role)).address.toRawString());
    expect(seen.size).toBe(23);
    expect((await new KeyRing("ac".repeat(32)).deposit(0)).address.equals(w0.address)).toBe(false);
    // Regression pin: changing the scheme would move every user's deposit address.
    const seed = await deriveEd25519Path(Buffer.from(secret, "hex"), [44, 607, 0, 0]);
    expect(Buffer.from(keyPairFromSeed(seed).publicKey).equals(w0.keyPair.publicKey)).toBe(true);
  });

  test("master secret: 32 to 64 bytes of hex", () => {
    expect(() => parseMasterSecret("ab".repeat(31))).toThrow();
    expect(() => parseMasterSecret("zz".repeat(32))).toThrow();
    expect(parseMasterSecret("AB".repeat(64))).toHaveLength(64);
    expect(() => new KeyRing("")).toThrow();
  });

  test("friendly forms: wallets non-bounceable, contracts bounceable, with the network's test flag", async () => {
    const w = await new KeyRing("01".repeat(32)).deposit(0);
    const test = friendlyWallet(w.address, true);
    const main = friendlyWallet(w.address, false);
    expect(test.startsWith("0Q")).toBe(true);
    expect(main.startsWith("UQ")).toBe(true);
    expect(Address.parseFriendly(test)).toMatchObject({ isBounceable: false, isTestOnly: true });
    expect(Address.parseFriendly(main)).toMatchObject({ isBounceable: false, isTestOnly: false });
    expect(Address.parseFriendly(friendlyContract(w.address, true))).toMatchObject({ isBounceable: true, isTestOnly: true });
    expect(Address.parseFriendly(test).address.equals(w.address)).toBe(true);
  });
});
