import { createHash } from "node:crypto";
import { Address, beginCell, Cell, storeStateInit } from "@ton/core";
import { WalletContractV4, WalletContractV5R1 } from "@ton/ton";
import nacl from "tweetnacl";
import { ConnectProof, verifyTonProof, VerifyTonProofOptions } from "../../auth/ton-proof";
import { friendly, standardWalletAddresses, walletAddress } from "../../auth/wallets";
import { TestWallet } from "../support/wallet";

const DOMAIN = "app.example.com";
const NOW = 1_750_000_000;
const opts: VerifyTonProofOptions = { domain: DOMAIN, nowSec: NOW };

const alice = TestWallet.fromSeed("alice", "v4r2");
const bob = TestWallet.fromSeed("bob", "v4r2");

function body(w: TestWallet = alice, o: Partial<Parameters<TestWallet["connectBody"]>[0]> = {}): ConnectProof {
  return w.connectBody({ domain: DOMAIN, timestamp: NOW - 10, ...o });
}

function expectFail(req: unknown, reason: string, o: VerifyTonProofOptions = opts): void {
  const v = verifyTonProof(req as ConnectProof, o);
  expect(v).toMatchObject({ ok: false, reason });
}

function stateInitB64(init: { code: Cell; data: Cell }): string {
  return beginCell().store(storeStateInit(init)).endCell().toBoc().toString("base64");
}

const sha256hex = (b: Buffer) => createHash("sha256").update(b).digest("hex");

describe("verifyTonProof: success", () => {
  it.each([
    ["v3r2", {}],
    ["v4r2", {}],
    ["v5r1", {}],
    ["v5r1", { testnet: true }],
    ["v4r2", { workchain: -1 }],
    ["v5r1", { workchain: -1 }],
  ] as const)("accepts a %s wallet %j by derivation", (version, wopts) => {
    const w = TestWallet.fromSeed(`w-${version}`, version, wopts);
    const req = body(w);
    const v = verifyTonProof(req, opts);
    expect(v).toMatchObject({ ok: true, rawAddress: w.rawAddress, walletVersion: version, via: "derived" });
    if (!v.ok) throw new Error("unreachable");
    expect(v.address.equals(w.address)).toBe(true);
    expect(v.proofId).toBe(sha256hex(Buffer.from(req.proof.signature, "base64")));
  });

  it("gives the same rawAddress for raw, friendly and uppercase forms", () => {
    const forms = [
      alice.rawAddress,
      alice.rawAddress.toUpperCase().replace(/^0X?/, "0"),
      alice.friendlyAddress,
      friendly(alice.address, { bounceable: true }),
      friendly(alice.address, { bounceable: false, testOnly: true }),
      alice.address.toString({ urlSafe: false }),
    ];
    for (const address of forms) {
      const v = verifyTonProof(body(alice, { address }), opts);
      expect(v).toMatchObject({ ok: true, rawAddress: alice.rawAddress });
    }
    expect(alice.rawAddress).toMatch(/^0:[0-9a-f]{64}$/);
  });

  it("each proof gets its own proofId", () => {
    const a = verifyTonProof(body(), opts);
    const b = verifyTonProof(body(), opts);
    expect(a.ok && b.ok && a.proofId !== b.proofId).toBe(true);
  });

  it("accepts the freshness boundaries and honours custom windows", () => {
    expect(verifyTonProof(body(alice, { timestamp: NOW - 300 }), opts).ok).toBe(true);
    expect(verifyTonProof(body(alice, { timestamp: NOW + 30 }), opts).ok).toBe(true);
    expect(verifyTonProof(body(alice, { timestamp: NOW - 900 }), { ...opts, maxAgeSec: 900 }).ok).toBe(true);
    expect(verifyTonProof(body(alice, { timestamp: NOW + 60 }), { ...opts, futureSkewSec: 60 }).ok).toBe(true);
  });

  it("accepts a non-ASCII domain whose lengthBytes counts UTF-8 bytes", () => {
    const domain = "пример.рф";
    const req = alice.connectBody({ domain, timestamp: NOW });
    expect(req.proof.domain.lengthBytes).toBe(Buffer.byteLength(domain));
    expect(req.proof.domain.lengthBytes).not.toBe(domain.length);
    expect(verifyTonProof(req, { ...opts, domain }).ok).toBe(true);
  });

  it("accepts a payload of exactly 512 bytes", () => {
    expect(verifyTonProof(body(alice, { payload: "x".repeat(512) }), opts).ok).toBe(true);
  });
});

describe("verifyTonProof: real wallet proofs (TonProof.NET test data)", () => {
  // Public test vectors produced by real wallet apps; they pin the message layout
  // against an implementation other than our own TestWallet.
  const v4r2Mainnet: ConnectProof = {
    address: "0:0522952c6d0846ad7f93dfb7987e5f77f02ee53290a26f9be85a50c689085932",
    publicKey: "e635249f6b3fbaf9742ae1d09d8f6f01b6082ff9256d719006329405019f3198",
    proof: {
      timestamp: 1721827476,
      domain: { lengthBytes: 20, value: "winogarcia.github.io" },
      signature: "z05SXc3qseQ/c/Fwmp+D4+qF2QWRAbP7E8mcYwbxBTqsEcG/DQdMdUUJhYx0NQTpid38oxBDYnJ9vB0cZkd/Bw==",
      payload:
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1bmlxdWVfbmFtZSI6IjExMjM3N2UxLWUwYjktNGIyOC05NjJkLTRiZDAxMTFmZmY3NyIsIm5iZiI6MTcyMTgyNzA4MiwiZXhwIjoxNzIxODI3OTgyLCJpYXQiOjE3MjE4MjcwODIsImlzcyI6Iklzc3VlckZvclBheWxvYWQiLCJhdWQiOiJBdWRpZW5jZUZvclBheWxvYWQifQ.BZ6LvTKvsSPZ4H6nbwcQP3gjVgvkbYm2vPIQjJ4Gyak",
    },
  };
  const v4r2Testnet: ConnectProof = {
    address: "0:13f04fa2a978c6eaccc5c0521c44d87b5be7f673ff20176a0203d90e8b90a7c1",
    publicKey: "c5134fcb39879c2cf81ffdc347353d031cf184538130fdd42688152088bf69ba",
    proof: {
      timestamp: 1718913764,
      domain: { lengthBytes: 20, value: "winogarcia.github.io" },
      signature: "YlhjR9vEhyGyYbrGavBFMxvQ0Gj0x3ESHO2mZ/QzMSItfpTw2q52TOkLklpx5VJochzAbkyVmYAvGmHgHcasAg==",
      payload: "mypayload",
    },
  };
  // W5 *beta* (library-cell code): signature is genuine, but the wallet type is unsupported.
  const v5beta: ConnectProof = {
    address: "0:7afd7563d8fd084d35060278320769743905983b8ea43c5b16fb6e3dc0a190dd",
    publicKey: "c5134fcb39879c2cf81ffdc347353d031cf184538130fdd42688152088bf69ba",
    proof: {
      timestamp: 1721812530,
      domain: { lengthBytes: 20, value: "winogarcia.github.io" },
      signature: "8ab+IBU83nga6aNznUNEHr3OgN1L7I2raVomWNrhEElTFI1a3VvAz4mzvQbaYiaCY+WftHZrJnSiEgnbRYojDA==",
      payload:
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1bmlxdWVfbmFtZSI6IjQxNDA1NzUxLTNlZjEtNDZhYi04ZDJiLTRkMjE4NWVhZjI2ZSIsIm5iZiI6MTcyMTgxMjQ4OCwiZXhwIjoxNzIxODEzMzg4LCJpYXQiOjE3MjE4MTI0ODgsImlzcyI6Iklzc3VlckZvclBheWxvYWQiLCJhdWQiOiJBdWRpZW5jZUZvclBheWxvYWQifQ.rzJ1tpq-jDp19pDwWO8ZNp8T9ZkME9CZXIppWc5FYGo",
      stateInit:
        "te6cckEBAwEAWQACATQCAQBdAAAAAH////6AAAAAAABiiaflnMPOFnwP/uGjmp6BjnjCKcCYfuoTRAqQRF+03SAIQgLkzzsvTG1qYeoPK1RH0mZ4WyavNjfbLe7mvNGqgm80EpjwGJs=",
    },
  };
  const at = (p: ConnectProof) => ({ domain: p.proof.domain.value, nowSec: p.proof.timestamp + 5 });

  it("verifies a v4r2 mainnet proof", () => {
    expect(verifyTonProof(v4r2Mainnet, at(v4r2Mainnet))).toMatchObject({
      ok: true,
      rawAddress: v4r2Mainnet.address,
      walletVersion: "v4r2",
    });
  });

  it("verifies a v4r2 testnet proof", () => {
    expect(verifyTonProof(v4r2Testnet, at(v4r2Testnet))).toMatchObject({
      ok: true,
      rawAddress: v4r2Testnet.address,
      walletVersion: "v4r2",
    });
  });

  it("accepts the v5 beta signature but not its key binding", () => {
    expect(verifyTonProof(v5beta, at(v5beta))).toMatchObject({ ok: false, reason: "KEY_ADDRESS_MISMATCH" });
    // Same proof with a flipped payload byte: now the signature step fails first.
    const tampered = { ...v5beta, proof: { ...v5beta.proof, payload: v5beta.proof.payload.replace(/.$/, "p") } };
    expect(verifyTonProof(tampered, at(v5beta))).toMatchObject({ ok: false, reason: "BAD_SIGNATURE" });
  });
});

describe("verifyTonProof: stateInit path", () => {
  // A v4r2 wallet with a non-default subwallet id cannot be derived from the key alone.
  const custom = WalletContractV4.create({ workchain: 0, publicKey: alice.publicKey, walletId: 42 });
  const customReq = (stateInit?: string, signer: TestWallet = alice): ConnectProof => {
    const req = signer.connectBody({ domain: DOMAIN, timestamp: NOW, address: custom.address });
    if (stateInit !== undefined) req.proof.stateInit = stateInit;
    return req;
  };

  it("rejects a non-standard wallet without stateInit", () => {
    expect(standardWalletAddresses(alice.publicKey, 0).some((a) => a.equals(custom.address))).toBe(false);
    expectFail(customReq(), "KEY_ADDRESS_MISMATCH");
  });

  it("accepts a non-standard wallet with a matching stateInit", () => {
    expect(verifyTonProof(customReq(stateInitB64(custom.init)), opts)).toMatchObject({
      ok: true,
      rawAddress: custom.address.toRawString(),
      walletVersion: "v4r2",
      via: "stateInit",
    });
  });

  it("accepts a standard wallet that also sends its stateInit", () => {
    for (const version of ["v3r2", "v4r2", "v5r1"] as const) {
      const w = TestWallet.fromSeed("si", version);
      expect(verifyTonProof(body(w, { withStateInit: true }), opts)).toMatchObject({ ok: true, walletVersion: version });
    }
  });

  it("accepts a v5r1 stateInit whose code is a library cell", () => {
    const w5 = WalletContractV5R1.create({
      publicKey: alice.publicKey,
      walletId: { networkGlobalId: -239, context: { workchain: 0, walletVersion: "v5r1", subwalletNumber: 7 } },
    });
    const libCode = beginCell().storeUint(2, 8).storeBuffer(w5.init.code.hash()).endCell({ exotic: true });
    const init = { code: libCode, data: w5.init.data };
    const addr = new Address(0, beginCell().store(storeStateInit(init)).endCell().hash());
    const req = alice.connectBody({ domain: DOMAIN, timestamp: NOW, address: addr });
    req.proof.stateInit = stateInitB64(init);
    expect(verifyTonProof(req, opts)).toMatchObject({ ok: true, walletVersion: "v5r1", via: "stateInit" });
  });

  it("rejects a stateInit whose hash is not the address", () => {
    // alice's *standard* stateInit is a valid wallet for her key, but not this address.
    expectFail(customReq(alice.stateInitBase64()), "KEY_ADDRESS_MISMATCH");
  });

  it("rejects a matching stateInit that carries a different key", () => {
    // bob signs for alice's custom wallet and presents alice's genuine stateInit.
    expectFail(customReq(stateInitB64(custom.init), bob), "KEY_ADDRESS_MISMATCH");
  });

  it("rejects a stateInit with unknown code even if the data holds the key", () => {
    const init = { code: beginCell().storeUint(0xdeadbeef, 32).endCell(), data: custom.init.data };
    const addr = new Address(0, beginCell().store(storeStateInit(init)).endCell().hash());
    const req = alice.connectBody({ domain: DOMAIN, timestamp: NOW, address: addr });
    req.proof.stateInit = stateInitB64(init);
    expectFail(req, "KEY_ADDRESS_MISMATCH");
  });

  it("rejects a v5r1 stateInit with signature auth disabled", () => {
    const w5 = WalletContractV5R1.create({ publicKey: alice.publicKey });
    const data = beginCell()
      .storeUint(0, 1)
      .storeUint(0, 32)
      .storeUint(2147483409, 32)
      .storeBuffer(alice.publicKey, 32)
      .storeBit(0)
      .endCell();
    const init = { code: w5.init.code, data };
    const addr = new Address(0, beginCell().store(storeStateInit(init)).endCell().hash());
    const req = alice.connectBody({ domain: DOMAIN, timestamp: NOW, address: addr });
    req.proof.stateInit = stateInitB64(init);
    expectFail(req, "KEY_ADDRESS_MISMATCH");
  });

  it("rejects a stateInit that is not a valid BOC", () => {
    expectFail(customReq(stateInitB64(custom.init).slice(0, 60)), "MALFORMED"); // truncated BOC
    expectFail(customReq("bm90IGEgYm9j"), "MALFORMED");
    expectFail(customReq("***"), "MALFORMED");
    expectFail(customReq("A".repeat(5000)), "MALFORMED");
  });
});

describe("verifyTonProof: failures", () => {
  it("key-address mismatch: valid signature by A for the address of B", () => {
    const req = alice.connectBody({ domain: DOMAIN, timestamp: NOW, address: bob.address });
    expect(req.address).toBe(bob.rawAddress);
    expectFail(req, "KEY_ADDRESS_MISMATCH");
  });

  it("accepts any standard wallet version of the signing key", () => {
    // bob's TestWallet is v4r2; his v3r2 address belongs to the same key.
    const v3 = walletAddress(bob.publicKey, "v3r2", { workchain: 0 });
    expect(verifyTonProof(bob.connectBody({ domain: DOMAIN, timestamp: NOW, address: v3 }), opts)).toMatchObject({
      ok: true,
      walletVersion: "v3r2",
    });
  });

  it("rejects stale proofs", () => {
    expectFail(body(alice, { timestamp: NOW - 301 }), "STALE");
    expectFail(body(alice, { timestamp: 0 }), "STALE");
    expectFail(body(alice, { timestamp: NOW - 61 }), "STALE", { ...opts, maxAgeSec: 60 });
  });

  it("rejects proofs from the future", () => {
    expectFail(body(alice, { timestamp: NOW + 31 }), "FUTURE");
    expectFail(body(alice, { timestamp: NOW + 3600 }), "FUTURE");
    expectFail(body(alice, { timestamp: NOW + 1 }), "FUTURE", { ...opts, futureSkewSec: 0 });
  });

  it("rejects a domain mismatch, compared exactly", () => {
    for (const domain of ["evil.example.com", "APP.example.com", "app.example.com:443", "app.example.com."]) {
      expectFail(alice.connectBody({ domain, timestamp: NOW }), "DOMAIN_MISMATCH");
    }
  });

  it("rejects a domain.lengthBytes that does not match the value", () => {
    const req = body();
    req.proof.domain.lengthBytes += 1;
    expectFail(req, "MALFORMED");
    const uni = alice.connectBody({ domain: "пример.рф", timestamp: NOW });
    uni.proof.domain.lengthBytes = "пример.рф".length; // UTF-16 units, not bytes
    expectFail(uni, "MALFORMED", { ...opts, domain: "пример.рф" });
  });

  it("rejects a signature by another key", () => {
    const req = body();
    req.proof.signature = bob.signProof({
      address: alice.address,
      domain: DOMAIN,
      timestamp: req.proof.timestamp,
      payload: req.proof.payload,
    });
    expectFail(req, "BAD_SIGNATURE");
  });

  it("rejects random signature bytes", () => {
    const req = body();
    req.proof.signature = Buffer.alloc(64, 7).toString("base64");
    expectFail(req, "BAD_SIGNATURE");
  });

  it("rejects a tampered payload, timestamp or address", () => {
    const p = body();
    p.proof.payload += "x";
    expectFail(p, "BAD_SIGNATURE");

    const t = body();
    t.proof.timestamp += 1;
    expectFail(t, "BAD_SIGNATURE");

    // Signed for a masterchain address, presented as the basechain one with the same hash.
    const m = body(alice, { address: new Address(-1, alice.address.hash) });
    m.address = alice.rawAddress;
    expectFail(m, "BAD_SIGNATURE");
  });

  it("rejects a malleated signature (S + L) that tweetnacl alone would accept", () => {
    const req = body();
    const sig = Buffer.from(req.proof.signature, "base64");
    const L = (1n << 252n) + 27742317777372353535851937790883648493n;
    let s = 0n;
    for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(sig[i]);
    s += L;
    const mal = Buffer.from(sig);
    for (let i = 32; i < 64; i++) {
      mal[i] = Number(s & 0xffn);
      s >>= 8n;
    }
    // Precondition: the raw primitive really is malleable, which is why we check S < L.
    const digest = createHash("sha256")
      .update(Buffer.concat([Buffer.from([0xff, 0xff]), Buffer.from("ton-connect"), tonProofMessageHash(req)]))
      .digest();
    expect(nacl.sign.detached.verify(digest, mal, alice.publicKey)).toBe(true);
    req.proof.signature = mal.toString("base64");
    expectFail(req, "BAD_SIGNATURE");
  });

  it("rejects malformed hex, base64 and sizes", () => {
    const cases: [string, (r: ConnectProof) => void][] = [
      ["short key", (r) => (r.publicKey = r.publicKey.slice(2))],
      ["non-hex key", (r) => (r.publicKey = "zz" + r.publicKey.slice(2))],
      ["0x key", (r) => (r.publicKey = "0x" + r.publicKey.slice(2))],
      ["non-base64 signature", (r) => (r.proof.signature = "!!" + r.proof.signature.slice(2))],
      ["short signature", (r) => (r.proof.signature = Buffer.alloc(63).toString("base64"))],
      ["long signature", (r) => (r.proof.signature = Buffer.alloc(65).toString("base64"))],
      ["hex signature", (r) => (r.proof.signature = Buffer.from(r.proof.signature, "base64").toString("hex"))],
      ["payload > 512 bytes", (r) => (r.proof.payload = "я".repeat(257))],
      ["garbage address", (r) => (r.address = "not-an-address")],
      ["bad checksum", (r) => (r.address = alice.friendlyAddress.slice(0, -1) + (alice.friendlyAddress.endsWith("A") ? "B" : "A"))],
      ["short raw hash", (r) => (r.address = r.address.slice(0, -2))],
      ["non-hex raw hash", (r) => (r.address = "0:" + "g".repeat(64))],
      ["odd workchain", (r) => (r.address = "5:" + alice.address.hash.toString("hex"))],
      ["float timestamp", (r) => (r.proof.timestamp = NOW + 0.5)],
      ["negative timestamp", (r) => (r.proof.timestamp = -1)],
      ["string timestamp", (r) => ((r.proof as unknown as Record<string, unknown>).timestamp = String(NOW))],
      ["empty domain", (r) => (r.proof.domain = { lengthBytes: 0, value: "" })],
      ["numeric stateInit", (r) => ((r.proof as unknown as Record<string, unknown>).stateInit = 1)],
    ];
    for (const [name, mutate] of cases) {
      const req = body();
      mutate(req);
      const v = verifyTonProof(req, opts);
      expect({ name, v }).toMatchObject({ name, v: { ok: false, reason: "MALFORMED" } });
    }
  });

  it("reports missing fields", () => {
    const full = body();
    // A structurally loose copy, so fields can be deleted or nulled.
    type Loose = Partial<Record<"address" | "publicKey", unknown>> & {
      proof: Partial<Record<"timestamp" | "payload" | "signature", unknown>> & {
        domain?: Partial<Record<"lengthBytes" | "value", unknown>>;
      };
    };
    const drop = (f: (r: Loose) => void): unknown => {
      const r = JSON.parse(JSON.stringify(full)) as Loose;
      f(r);
      return r;
    };
    for (const req of [
      null,
      undefined,
      "string",
      [],
      {},
      drop((r) => delete r.address),
      drop((r) => delete r.publicKey),
      drop((r) => delete (r as Partial<Loose>).proof),
      drop((r) => delete r.proof.signature),
      drop((r) => delete r.proof.payload),
      drop((r) => delete r.proof.timestamp),
      drop((r) => delete r.proof.domain),
      drop((r) => delete r.proof.domain!.lengthBytes),
      drop((r) => (r.proof.signature = null)),
    ]) {
      expectFail(req, "MISSING_FIELDS");
    }
  });

  it("treats a null stateInit as absent", () => {
    const req = body() as unknown as { proof: Record<string, unknown> };
    req.proof.stateInit = null;
    expect(verifyTonProof(req as unknown as ConnectProof, opts).ok).toBe(true);
  });

  it("checks cheap things first", () => {
    const badSig = (r: ConnectProof) => {
      r.proof.signature = Buffer.alloc(64, 1).toString("base64");
      return r;
    };
    // malformed beats stale
    const m = body(alice, { timestamp: NOW - 10_000 });
    m.publicKey = "00";
    expectFail(m, "MALFORMED");
    // stale / future / domain beat a bad signature
    expectFail(badSig(body(alice, { timestamp: NOW - 10_000 })), "STALE");
    expectFail(badSig(body(alice, { timestamp: NOW + 10_000 })), "FUTURE");
    expectFail(badSig(alice.connectBody({ domain: "evil.com", timestamp: NOW })), "DOMAIN_MISMATCH");
    // a bad signature beats a key/address mismatch
    expectFail(badSig(alice.connectBody({ domain: DOMAIN, timestamp: NOW, address: bob.address })), "BAD_SIGNATURE");
  });

  it("throws on invalid options (programming error, not a client error)", () => {
    expect(() => verifyTonProof(body(), { domain: "", nowSec: NOW })).toThrow(TypeError);
    expect(() => verifyTonProof(body(), { domain: DOMAIN, nowSec: NaN })).toThrow(TypeError);
  });
});

/** sha256 of the TON Connect message, built independently of the module under test. */
function tonProofMessageHash(req: ConnectProof): Buffer {
  const a = Address.parse(req.address);
  const wc = Buffer.alloc(4);
  wc.writeInt32BE(a.workChain);
  const dl = Buffer.alloc(4);
  dl.writeUInt32LE(req.proof.domain.lengthBytes);
  const ts = Buffer.alloc(8);
  ts.writeBigUInt64LE(BigInt(req.proof.timestamp));
  return createHash("sha256")
    .update(
      Buffer.concat([
        Buffer.from("ton-proof-item-v2/"),
        wc,
        a.hash,
        dl,
        Buffer.from(req.proof.domain.value),
        ts,
        Buffer.from(req.proof.payload),
      ]),
    )
    .digest();
}
