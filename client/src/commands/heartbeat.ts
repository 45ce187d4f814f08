import { UsageError } from "../terminal/args";
import { needLogin, print, type Command } from "../terminal/command";
import { pos } from "../terminal/options";

export const heartbeat: Command = {
  name: "heartbeat",
  usage: "heartbeat <seconds>",
  summary: "dead man's switch: unless another heartbeat comes within 5 to 300 seconds, every open order of yours is cancelled; 0 disarms",
  async run(ctx) {
    const raw = pos(ctx, 0, "seconds");
    if (!/^\d+$/.test(raw)) throw new UsageError("seconds must be a whole number (0 disarms, else 5 to 300)");
    const h = await needLogin(ctx).heartbeats.send(Number(raw));
    print(
      ctx,
      () =>
        h.armed
          ? `Dead man's switch armed: unless another heartbeat comes by ${h.expiresAt}, every open order is cancelled.`
          : "Dead man's switch disarmed.",
      h,
    );
  },
};
