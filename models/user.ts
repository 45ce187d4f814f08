/** A trader, keyed by the wallet that proved control at login. */
export interface UserDoc {
  _id: string;
  /** Raw `0:hex` form: raw and friendly logins name the same user. */
  walletAddress: string;
  createdAt: string;
  /** Rate tier the operator granted (lib/config.ts RATE_TIERS); absent: `default`. */
  tier?: string;
  /** Attached only from verified Telegram init data; its chat id is where bot pushes go. */
  telegram?: {
    id: number;
    username?: string;
    firstName?: string;
    lastName?: string;
    languageCode?: string;
    isPremium?: boolean;
    verifiedAt: string;
  };
}

export interface SessionDoc {
  _id: string;
  userId: string;
  walletAddress: string;
  /** Unix seconds. */
  expiresAt: number;
  createdAt: string;
  revokedAt?: string;
}

/** A ton_proof that was accepted; kept past the freshness window so it cannot log in twice. */
export interface UsedProofDoc {
  _id: string;
  /** Unix seconds after which the proof is stale anyway. */
  staleAt: number;
}

/** The session user a verified token names (the gateway's SessionUser, the socket `user` channel). */
export interface TokenUser {
  id: string;
  /** Raw form `0:hex` of the wallet bound to the session. */
  wallet: string;
  sid: string;
  /** Seconds since epoch when the token stops being valid. */
  exp: number;
  /** Rate tier when the token was issued (absent: `default`); the gateway hears of later grants. */
  tier?: string;
}

/** A user's rate tier (PUT /admin/users/:userId/tier, auth.tierChanged). */
export interface UserTier {
  userId: string;
  tier: string;
}
