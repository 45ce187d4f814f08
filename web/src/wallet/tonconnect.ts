/**
 * Sign-in with a real TON wallet through TON Connect (@tonconnect/ui, loaded only when used).
 * The app is described to wallets by the exchange's /tonconnect-manifest.json, the list of wallets
 * comes from the exchange (/tonconnect-wallets.json) and analytics are off, so nothing is fetched
 * from third parties by the page itself. The wallet signs a ton_proof over the payload the
 * exchange issued; the proof goes to POST /auth/connect, where it is checked like any other.
 */
import { TonConnect, TonConnectUI, type ConnectedWallet, type TonProofItemReplySuccess } from "@tonconnect/ui";
import type { ConnectRequest, Session } from "@pmx/client/models";
import { client } from "../api";

let ui: TonConnectUI | null = null;

function tonConnectUI(): TonConnectUI {
  ui ??= new TonConnectUI({
    connector: new TonConnect({
      manifestUrl: `${location.origin}/tonconnect-manifest.json`,
      walletsListSource: `${location.origin}/tonconnect-wallets.json`,
      analytics: { mode: "off" },
    }),
    // The exchange's session is the JWT; the wallet connection is only needed for the proof.
    restoreConnection: false,
  });
  return ui;
}

export class WalletCancelled extends Error {
  constructor() {
    super("The wallet window was closed before signing in.");
  }
}

function connectBody(wallet: ConnectedWallet, messengerInitData: string | undefined): ConnectRequest {
  const item = wallet.connectItems?.tonProof;
  if (!item || !("proof" in item)) throw new Error("The wallet did not sign the login proof.");
  const { proof } = item as TonProofItemReplySuccess;
  const body: ConnectRequest = {
    address: wallet.account.address,
    publicKey: wallet.account.publicKey ?? "",
    proof: {
      timestamp: proof.timestamp,
      domain: proof.domain,
      payload: proof.payload,
      signature: proof.signature,
      ...(wallet.account.walletStateInit ? { stateInit: wallet.account.walletStateInit } : {}),
    },
  };
  if (messengerInitData) body.messengerInitData = messengerInitData;
  return body;
}

/** Opens the wallet list; resolves with the exchange session once the wallet's proof is accepted. */
export async function signInWithTonConnect(payload: string, messengerInitData?: string): Promise<Session> {
  const tc = tonConnectUI();
  if (tc.connected) await tc.disconnect();
  tc.setConnectRequestParameters({ state: "ready", value: { tonProof: payload } });
  return new Promise<Session>((resolve, reject) => {
    const offs: Array<() => void> = [];
    const done = () => offs.forEach((off) => off());
    offs.push(
      tc.onStatusChange(
        (wallet) => {
          if (!wallet) return;
          done();
          let body: ConnectRequest;
          try {
            body = connectBody(wallet, messengerInitData);
          } catch (err) {
            reject(err);
            return;
          }
          client.auth.connect(body).then(resolve, reject);
        },
        (err) => {
          done();
          reject(err);
        },
      ),
    );
    offs.push(
      tc.onModalStateChange((state) => {
        if (state.status === "closed" && state.closeReason === "action-cancelled") {
          done();
          reject(new WalletCancelled());
        }
      }),
    );
    tc.openModal().catch((err: unknown) => {
      done();
      reject(err);
    });
  });
}

/** Ends the wallet connection too when the user signs out. */
export async function disconnectTonConnect(): Promise<void> {
  if (ui?.connected) await ui.disconnect();
}
