/**
 * Light or dark colours (styles.css keys them on <html data-scheme>): the system's choice, followed
 * as it changes, unless Telegram's theme sets one.
 */
const system = matchMedia("(prefers-color-scheme: dark)");
let forced: "dark" | "light" | null = null;

function apply(): void {
  document.documentElement.dataset.scheme = forced ?? (system.matches ? "dark" : "light");
}

system.addEventListener("change", apply);
apply();

/** The scheme Telegram's theme asks for, or null to follow the system again. */
export function forceScheme(scheme: "dark" | "light" | null): void {
  forced = scheme;
  apply();
}
