/**
 * The market clock: runs the resolution process's deadlines (close times, dispute windows) at
 * once when started (what passed while the server was down) and then every `everyMs`, one run at
 * a time. The catalog runs on one node of a cluster (a single writer), so one clock decides; each
 * change is a compare-and-set anyway, so a second clock could not close or finalize a market twice.
 */
export class MarketClock {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly tick: () => Promise<unknown>,
    private readonly everyMs: number,
    private readonly warn: (message: string) => void,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.run(), this.everyMs);
    this.timer.unref?.();
    void this.run();
  }

  /** One run now (or the one running). */
  run(): Promise<void> {
    this.running ??= this.tick()
      .then(() => undefined)
      .catch((err: unknown) => this.warn(`market clock: ${(err as Error)?.message}`))
      .finally(() => (this.running = null));
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
