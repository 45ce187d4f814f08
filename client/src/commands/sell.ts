import { orderEntryCommand } from "./order-entry";

export const sell = orderEntryCommand("SELL");
