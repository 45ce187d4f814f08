/** What the server wrote into index.html (gateway/web.ts): facts the app cannot find out alone. */
function meta(name: string): string | null {
  return document.querySelector(`meta[name="${name}"]`)?.getAttribute("content") ?? null;
}

export const config = {
  /** "sandbox": the local sandbox wallet and the faucet are offered. */
  chain: meta("pmx:chain") ?? "sandbox",
  testnet: meta("pmx:testnet") !== "false",
};

export const isSandbox = config.chain === "sandbox";
