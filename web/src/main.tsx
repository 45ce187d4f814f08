/** Start: Telegram (when launched inside it), the live connection, then the app. */
import { render } from "preact";
import { App } from "./app";
import { startLive } from "./live";
import "./scheme";
import { readLaunch, startTelegram } from "./telegram";
import "./styles.css";

const launch = readLaunch();
if (launch) startTelegram(launch);
startLive();
render(<App />, document.getElementById("app") as HTMLElement);
