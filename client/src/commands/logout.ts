import { print, type Command } from "../terminal/command";
import { saveSession } from "../terminal/store";

export const logout: Command = {
  name: "logout",
  usage: "logout",
  summary: "end the session on the server and forget it",
  async run(ctx) {
    const c = ctx.client();
    if (c.session) await c.auth.logout();
    else saveSession(ctx.sessionPath, c.origin, null);
    print(ctx, () => "Logged out.", { loggedOut: true });
  },
};
