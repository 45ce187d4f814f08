/**
 * `npm run --silent admin-key`: prints the operator key (X-Admin-Key) of the embedded server:
 * ADMIN_KEY when set, else the one the first `npm start` generated into DATA_DIR/secrets.json.
 * It never creates one, so it cannot disagree with the server.
 */
import { join } from "node:path";
import { dataDirOf, storedSecret } from "../lib/config";

function main(): number {
  if (process.env.ADMIN_KEY) {
    process.stdout.write(`${process.env.ADMIN_KEY}\n`);
    return 0;
  }
  const dataDir = dataDirOf(process.env);
  const key = dataDir === ":memory:" ? undefined : storedSecret(dataDir, "adminKey");
  if (!key) {
    process.stderr.write(
      `No operator key in ${join(dataDir, "secrets.json")}: start the embedded server once (npm start) with this DATA_DIR, or set ADMIN_KEY.\n`,
    );
    return 1;
  }
  process.stdout.write(`${key}\n`);
  return 0;
}

process.exitCode = main();
