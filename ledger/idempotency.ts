/**
 * Idempotency-Key claims: one execution per key and caller, its answer journaled with the command
 * it ran. A request claims its key before it runs; a second request with the key waits for the
 * first one's answer (or executes, when the first gave up without one); a key that named another
 * request is refused. The ledger hands each committed entry's key here (`answered`).
 */
import { Refusal } from "../engine/refusal";
import type { IdemClaim, IdemRecord, LedgerEntryDoc } from "../models/trading";
import type { LedgerCode } from "./codes";
import type { StoredIdem } from "./store";

/** What the claims read of the ledger: its entries not yet written, their durability, and the stored answers. */
export interface IdemLedger {
  /** The entry applied but not yet written that carries this key, if any. */
  unwritten(scope: string, key: string): LedgerEntryDoc | undefined;
  waitDurable(seq: number): Promise<void>;
  stored(scope: string, key: string): Promise<StoredIdem | null>;
}

type Waiter = (c: IdemClaim | null) => void;

const reused = (message: string) => new Refusal<LedgerCode>("conflict", "IDEMPOTENCY_KEY_REUSED", message);

export class IdemClaims {
  /** Idempotency-Keys being executed now, with the requests waiting for their answer. */
  private readonly claims = new Map<string, { fingerprint: string; waiters: Waiter[] }>();

  constructor(private readonly ledger: IdemLedger) {}

  /**
   * The stored answer; or the right to execute the request (the caller must end with an entry
   * carrying `idem`, or `release`); or, while another request with the key executes, wait for
   * its answer. A key that named another request is refused.
   */
  async claim(scope: string, key: string, fingerprint: string): Promise<IdemClaim> {
    const id = `${scope}\0${key}`;
    for (;;) {
      const unwritten = this.ledger.unwritten(scope, key);
      if (unwritten) {
        if (unwritten.idem?.fingerprint !== fingerprint) throw reused("This Idempotency-Key was used for another request");
        // Answered once durable, like the first answer.
        await this.ledger.waitDurable(unwritten.seq);
        continue;
      }
      const stored = await this.ledger.stored(scope, key);
      const c = this.claims.get(id);
      if (stored) {
        if (stored.fingerprint !== fingerprint) throw reused("This Idempotency-Key was used for another request");
        // Bound to a command whose request still runs: its answer is on its way.
        if (stored.answerFrom && c) {
          const answer = await new Promise<IdemClaim | null>((resolve) => c.waiters.push(resolve));
          if (answer) return answer;
          continue;
        }
        const { status, response, answerFrom } = stored;
        return { answered: true, status, response, ...(answerFrom ? { answerFrom } : {}) };
      }
      if (!c) {
        this.claims.set(id, { fingerprint, waiters: [] });
        return { answered: false };
      }
      if (c.fingerprint !== fingerprint) throw reused("This Idempotency-Key is in use by another request");
      const answer = await new Promise<IdemClaim | null>((resolve) => c.waiters.push(resolve));
      if (answer) return answer;
      // The first one gave up without an answer: try again (perhaps to execute).
    }
  }

  /** The request ended without an answer to keep (refused, failed): the next one may execute. */
  release(scope: string, key: string): void {
    const id = `${scope}\0${key}`;
    const c = this.claims.get(id);
    if (!c) return;
    this.claims.delete(id);
    for (const w of c.waiters) w(null);
  }

  /** An entry carrying the key is durable: those waiting get its answer. */
  answered(r: IdemRecord): void {
    const id = `${r.scope}\0${r.key}`;
    const c = this.claims.get(id);
    if (!c) return;
    if (r.answerFrom) {
      // Only the key's binding: the request keeps its claim until its answer (or release); those
      // waiting look again and wait for that.
      for (const w of c.waiters.splice(0)) w(null);
      return;
    }
    this.claims.delete(id);
    for (const w of c.waiters) w({ answered: true, status: r.status, response: r.response });
  }
}
