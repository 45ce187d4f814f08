/**
 * Polls `probe` until it gives a truthy value (a broker event handled, a batch written); fails after
 * `timeoutMs`, a ceiling well above the time it takes (a loaded machine is several times slower).
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs = 30_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`condition not met: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
