import { orderEntryCommand } from "./order-entry";

export const buy = orderEntryCommand("BUY");
