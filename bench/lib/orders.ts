/**
 * The order benches' one workload, rotating over users and markets (a shared counter across
 * connections): 80% resting BUY YES / BUY NO at 0.45..0.49, 20% crossing at 0.55 (mint fills), one
 * share each. `path` lets a bare gateway get the very same requests.
 */
import type { BenchUser } from "./proc";

const SHARE = 1_000_000;

export interface OrderRequest {
  method: string;
  path: string;
  setupRequest(req: { headers?: Record<string, string>; body?: string }): { headers?: Record<string, string>; body?: string };
}

export function orderRequests(users: BenchUser[], markets: string[], path = "/api/v1/orders"): OrderRequest[] {
  let k = 0;
  return [
    {
      method: "POST",
      path,
      setupRequest(req) {
        const i = k++;
        const u = users[i % users.length];
        const marketId = markets[(i + Math.floor(i / users.length)) % markets.length];
        const crossing = i % 5 === 0;
        const outcome = (i >> 1) % 2 === 0 ? "YES" : "NO";
        const price = crossing ? 0.55 : (45 + (i % 5)) / 100;
        req.headers = { "content-type": "application/json", authorization: `Bearer ${u.token}` };
        req.body = JSON.stringify({ marketId, side: "BUY", outcome, orderType: "GTC", price, quantity: SHARE });
        return req;
      },
    },
  ];
}

/** POST /orders/batch of `size` orders of one user, rotating as orderRequests does over users and markets. */
export function batchRequests(users: BenchUser[], markets: string[], size: number): OrderRequest[] {
  let k = 0;
  return [
    {
      method: "POST",
      path: "/api/v1/orders/batch",
      setupRequest(req) {
        const b = k++;
        const u = users[b % users.length];
        const orders = Array.from({ length: size }, (_, j) => {
          const i = b * size + j;
          const crossing = i % 5 === 0;
          return {
            marketId: markets[(i + Math.floor(b / users.length)) % markets.length],
            side: "BUY",
            outcome: (i >> 1) % 2 === 0 ? "YES" : "NO",
            orderType: "GTC",
            price: crossing ? 0.55 : (45 + (i % 5)) / 100,
            quantity: SHARE,
          };
        });
        req.headers = { "content-type": "application/json", authorization: `Bearer ${u.token}` };
        req.body = JSON.stringify({ orders });
        return req;
      },
    },
  ];
}
