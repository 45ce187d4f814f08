/** The table of `trade` commands, in the order help lists them. */
import type { Command } from "../terminal/command";
import { admin } from "./admin";
import { amend } from "./amend";
import { balance } from "./balance";
import { book } from "./book";
import { buy } from "./buy";
import { cancel } from "./cancel";
import { convert } from "./convert";
import { deposit } from "./deposit";
import { event } from "./event";
import { events } from "./events";
import { faucet } from "./faucet";
import { heartbeat } from "./heartbeat";
import { helpCommand } from "./help";
import { history } from "./history";
import { login } from "./login";
import { logout } from "./logout";
import { market } from "./market";
import { notifications } from "./notifications";
import { orders } from "./orders";
import { positions } from "./positions";
import { quote } from "./quote";
import { quotes } from "./quotes";
import { redeem } from "./redeem";
import { search } from "./search";
import { sell } from "./sell";
import { status } from "./status";
import { trades } from "./trades";
import { transfers } from "./transfers";
import { wallet } from "./wallet";
import { watch } from "./watch";
import { withdraw } from "./withdraw";

const LISTED: readonly Command[] = [
  wallet,
  login,
  logout,
  status,
  balance,
  positions,
  events,
  search,
  event,
  market,
  book,
  history,
  quote,
  buy,
  sell,
  orders,
  cancel,
  amend,
  quotes,
  heartbeat,
  trades,
  transfers,
  deposit,
  faucet,
  withdraw,
  redeem,
  convert,
  notifications,
  watch,
  admin,
];

/** Help first, then the others; a name given twice is a mistake caught at load. */
function buildTable(commands: readonly Command[]): ReadonlyMap<string, Command> {
  const table = new Map<string, Command>();
  for (const cmd of [helpCommand(table), ...commands]) {
    if (table.has(cmd.name)) throw new Error(`two commands are named "${cmd.name}"`);
    table.set(cmd.name, cmd);
  }
  return table;
}

export const COMMANDS = buildTable(LISTED);
