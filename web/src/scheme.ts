/**
 * Light or dark colours (styles.css keys them on <html data-scheme>): the system's choice, followed
 * as it changes, unless Telegram's theme sets one; the viewer's own choice (kept in this browser)
 * goes over both.
 */
import { Store } from "./store";

export type SchemeChoice = "auto" | "light" | "dark";
const KEY = "pmx.scheme";
const system = matchMedia("(prefers-color-scheme: dark)");
let forced: "dark" | "light" | null = null;

function stored(): SchemeChoice {
  try {
    const v = localStorage.getItem(KEY);
    return v === "light" || v === "dark" ? v : "auto";
  } catch {
    return "auto";
  }
}

export const schemeChoice$ = new Store<SchemeChoice>(stored());

function apply(): void {
  const choice = schemeChoice$.get();
  document.documentElement.dataset.scheme = choice !== "auto" ? choice : (forced ?? (system.matches ? "dark" : "light"));
}

system.addEventListener("change", apply);
schemeChoice$.subscribe(apply);
apply();

/** The scheme Telegram's theme asks for, or null to follow the system again. */
export function forceScheme(scheme: "dark" | "light" | null): void {
  forced = scheme;
  apply();
}

export function chooseScheme(choice: SchemeChoice): void {
  try {
    if (choice === "auto") localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, choice);
  } catch {
    // Private windows may refuse storage; the choice still holds for this page.
  }
  schemeChoice$.set(choice);
}
