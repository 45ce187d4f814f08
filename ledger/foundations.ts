/**
 * The start check of everything the exchange starts from besides the money store: the users its
 * accounts belong to, the markets and events its books trade, the deposit addresses its deposits
 * came through, the chain state and the master secret its wallets derive from. The money store is
 * the witness: what it holds must still be found in each piece, and the fingerprints it records
 * (the master secret's hot wallet, the sandbox chain's genesis) must still match. A piece missing
 * or damaged stops the start with a message naming it; nothing here writes but those fingerprints,
 * and only once every check passed.
 */
import { StoreDamaged, type MoneyFacts } from "./store";

export type { MoneyFacts };

export interface FoundationMoneyPort {
  location: string;
  facts(): Promise<MoneyFacts>;
  fingerprint(name: string): Promise<string | null>;
  recordFingerprint(name: string, value: string): Promise<void>;
}

/** One piece kept outside the money store (a NeDB file, a MongoDB collection). */
export interface PieceReader<T> {
  /** Where it is, for messages. */
  where: string;
  /** The documents of these ids that it holds. */
  byIds(ids: string[]): Promise<Map<string, T>>;
}

export type ChainStateInfo = { kind: "absent" } | { kind: "damaged"; why: string } | { kind: "present"; genesis: string };

export interface FoundationChainPort {
  /** Where the chain's state is, for messages. */
  where: string;
  /** The persisted sandbox chain; null where the chain is not kept here (TON, in memory). */
  state: (() => Promise<ChainStateInfo>) | null;
  /** The hot wallet address the configured master secret derives (its fingerprint). */
  hotWallet(): Promise<string>;
  /** The deposit address the configured master secret derives at this index. */
  depositAddress(index: number): Promise<string>;
}

/** One service's piece files in the data dir (embedded only). */
export interface ServiceFiles {
  service: string;
  /** Piece files that exist (with documents or empty). */
  existing: string[];
  /** Piece files that are absent. */
  missing: string[];
}

/** The piece files of the services this node runs (embedded only). */
export interface FoundationFiles {
  services: ServiceFiles[];
  /** Piece files that hold documents (an empty one proves nothing was lost). */
  present: string[];
  /** Files that exist but cannot be read as what they are. */
  damaged: Array<{ file: string; why: string }>;
  /** Creates these (empty) piece files, durably. */
  make(files: string[]): Promise<void>;
}

export interface FoundationPorts {
  money: FoundationMoneyPort;
  files?: FoundationFiles;
  users?: PieceReader<{ _id: string }>;
  markets?: PieceReader<{ _id: string; eventId: string }>;
  events?: PieceReader<{ _id: string }>;
  depositAddresses?: PieceReader<{ _id: string; index: number; address: string }>;
  chain?: FoundationChainPort;
}

export const FINGERPRINT = { hotWallet: "chain_hot_wallet", genesis: "chain_genesis" } as const;
/** The record that a service's pieces were made in this data dir (from then on they must stay). */
export const ranHere = (service: string) => `pieces_${service}`;

/** How many deposit addresses are re-derived at start (each costs a key derivation). */
export const DERIVATION_SAMPLE = 64;

const RESTORE =
  "Restore it from the backup taken with the money store; a fresh one would not match the money this exchange holds. (To start afresh instead, point DATA_DIR at an empty directory.)";

function listed(ids: string[]): string {
  return ids.length > 3 ? `${ids.slice(0, 3).join(", ")} and ${ids.length - 3} more` : ids.join(", ");
}

async function absent<T>(piece: PieceReader<T>, ids: string[]): Promise<{ found: Map<string, T>; missing: string[] }> {
  const found = await piece.byIds(ids);
  return { found, missing: ids.filter((id) => !found.has(id)) };
}

/**
 * Every problem found, in one message; throws when there is one. Records fingerprints first seen
 * after a clean check, and answers what the money store told (a fresh store: the pieces may be made).
 */
export async function checkFoundations(p: FoundationPorts): Promise<MoneyFacts> {
  const problems: string[] = [];
  const facts = await p.money.facts();
  const f = p.files;
  if (f) {
    if (facts.fresh && f.present.length)
      problems.push(
        `the money store ${p.money.location} is missing while the data dir holds ${listed(f.present)}: the balances, orders and trades are gone. Restore the money store (and its money.head) from a backup`,
      );
    // A service new to this data dir (none of its files, never recorded) gets its pieces made below.
    if (!facts.fresh)
      for (const g of f.services)
        if (g.existing.length || (await p.money.fingerprint(ranHere(g.service))) !== null)
          for (const file of g.missing) problems.push(`${file} is missing from a data dir that has run. ${RESTORE}`);
    for (const d of f.damaged) problems.push(`${d.file} is damaged (${d.why}). ${RESTORE}`);
  }
  if (p.users && facts.users.length) {
    const { missing } = await absent(p.users, facts.users);
    if (missing.length)
      problems.push(
        `${p.users.where} lacks ${missing.length} user(s) the money store holds balances or orders for (${listed(missing)}): their wallets would log in as new, empty users. ${RESTORE}`,
      );
  }
  if (p.markets && facts.markets.length) {
    const { found, missing } = await absent(p.markets, facts.markets);
    if (missing.length)
      problems.push(
        `${p.markets.where} lacks ${missing.length} market(s) the money store holds books, positions or collateral for (${listed(missing)}): their orders could not be cancelled nor their collateral released. ${RESTORE}`,
      );
    if (p.events && found.size) {
      const eventIds = [...new Set([...found.values()].map((m) => m.eventId))];
      const { missing: noEvent } = await absent(p.events, eventIds);
      if (noEvent.length)
        problems.push(`${p.events.where} lacks ${noEvent.length} event(s) of markets with money in them (${listed(noEvent)}). ${RESTORE}`);
    }
  }
  const chain = p.chain;
  const recordedHot = chain ? await p.money.fingerprint(FINGERPRINT.hotWallet) : null;
  const recordedGenesis = chain?.state ? await p.money.fingerprint(FINGERPRINT.genesis) : null;
  let hot: string | null = null;
  if (chain) {
    hot = await chain.hotWallet();
    if (recordedHot !== null && recordedHot !== hot)
      problems.push(
        `the chain master secret is not the one this data was created with: its hot wallet is ${hot}, the money store knows ${recordedHot}. Restore DATA_DIR/secrets.json from a backup, or set MASTER_SECRET to the secret this data was created with`,
      );
  }
  if (p.depositAddresses && facts.depositors.length) {
    const { found, missing } = await absent(p.depositAddresses, facts.depositors);
    if (missing.length)
      problems.push(
        `${p.depositAddresses.where} lacks the deposit address of ${missing.length} user(s) credited by on-chain deposits (${listed(missing)}): they would be handed new addresses and the old ones' deposits would be lost. ${RESTORE}`,
      );
    if (chain && (recordedHot === null || recordedHot === hot)) {
      const wrong: string[] = [];
      for (const a of [...found.values()].slice(0, DERIVATION_SAMPLE))
        if ((await chain.depositAddress(a.index)) !== a.address) wrong.push(a._id);
      if (wrong.length)
        problems.push(
          `the deposit addresses in ${p.depositAddresses.where} do not derive from the configured chain master secret (users ${listed(wrong)}): restore DATA_DIR/secrets.json from a backup, or set MASTER_SECRET to the secret this data was created with`,
        );
    }
  }
  let genesis: string | null = null;
  if (chain?.state) {
    const state = await chain.state();
    if (state.kind === "damaged") problems.push(`the sandbox chain state ${chain.where} is damaged (${state.why}). ${RESTORE}`);
    else if (state.kind === "absent") {
      if (recordedGenesis !== null || facts.chainUsed || facts.depositors.length)
        problems.push(
          `the sandbox chain state ${chain.where} is missing while the money store holds money that came through it: a new chain would not hold the deposits and the hot wallet's funds. ${RESTORE}`,
        );
    } else {
      genesis = state.genesis;
      if (recordedGenesis !== null && recordedGenesis !== genesis)
        problems.push(
          `the sandbox chain state ${chain.where} is another chain (created ${genesis}) than the one the money store knows (created ${recordedGenesis}). ${RESTORE}`,
        );
    }
  }
  if (problems.length)
    throw new StoreDamaged(
      `${problems.length > 1 ? `${problems.length} problems: ` : ""}${problems.map((m, i) => (problems.length > 1 ? `(${i + 1}) ${m}` : m)).join("; ")}`,
    );
  if (f) {
    // Made before they are recorded: a crash in between leaves files, not a record without them.
    await f.make(f.services.flatMap((g) => g.missing));
    for (const g of f.services)
      if ((await p.money.fingerprint(ranHere(g.service))) === null) await p.money.recordFingerprint(ranHere(g.service), "1");
  }
  if (hot !== null && recordedHot === null) await p.money.recordFingerprint(FINGERPRINT.hotWallet, hot);
  if (genesis !== null && recordedGenesis === null) await p.money.recordFingerprint(FINGERPRINT.genesis, genesis);
  return facts;
}
