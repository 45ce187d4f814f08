import type { ServiceSchema } from "moleculer";
import type { ServiceName } from "../lib/config";
import ApiService from "./api.service";
import AuthService from "./auth.service";
import CatalogService from "./catalog.service";
import BookService from "./book.service";
import LedgerService from "./ledger.service";
import RouterService from "./router.service";
import AmmService from "./amm.service";
import NotifierService from "./notifier.service";
import ChainService from "./chain.service";

/** Every service schema by name; a node starts the ones its SERVICES selects. */
export const SERVICE_SCHEMAS: Partial<Record<ServiceName, ServiceSchema>> = {
  api: ApiService,
  auth: AuthService,
  catalog: CatalogService,
  book: BookService,
  ledger: LedgerService,
  router: RouterService,
  amm: AmmService,
  notifier: NotifierService,
  chain: ChainService,
};
