/**
 * What the shared-frame write takes from engine.io / ws (gateway/socket-frames.ts): the checks on
 * fake transports and library shapes, and on the libraries actually installed (an upgrade that
 * removes or renames what the write needs fails here by name).
 */
import {
  installedFrameLibs,
  missingForSharedFrames,
  missingOnConnection,
  takesPreEncodedFrames,
  writeDirect,
  type EngineConn,
} from "../../gateway/socket-frames";

type Transport = EngineConn["transport"];

function fakeConn(transport: Partial<Transport> & Record<string, unknown>, writeBuffer: unknown[] = []): EngineConn & { sent: Buffer[][] } {
  const sent: Buffer[][] = [];
  const t = {
    name: "websocket",
    writable: true,
    socket: { readyState: 1, _sender: { sendFrame: (list: Buffer[]) => void sent.push(list) } },
    ...transport,
  } as Transport;
  return { readyState: "open", writeBuffer, transport: t, write: () => undefined, sent };
}

describe("takesPreEncodedFrames", () => {
  test("a websocket whose ws socket has _sender.sendFrame and no compression takes them", () => {
    expect(takesPreEncodedFrames(fakeConn({}).transport)).toBe(true);
  });

  test("false for a transport without _sender.sendFrame (a ws that renamed or removed it)", () => {
    expect(takesPreEncodedFrames(fakeConn({ socket: { readyState: 1 } }).transport)).toBe(false);
    expect(takesPreEncodedFrames(fakeConn({ socket: { readyState: 1, _sender: {} } }).transport)).toBe(false);
    expect(
      takesPreEncodedFrames(
        fakeConn({ socket: { readyState: 1, _sender: { sendFrame: "not a function" } } as unknown as Transport["socket"] }).transport,
      ),
    ).toBe(false);
    expect(takesPreEncodedFrames(fakeConn({ socket: undefined }).transport)).toBe(false);
  });

  test("false with perMessageDeflate (the frames would have to be compressed per socket)", () => {
    expect(takesPreEncodedFrames(fakeConn({ perMessageDeflate: { threshold: 1024 } }).transport)).toBe(false);
  });

  test("false off websocket", () => {
    expect(takesPreEncodedFrames(fakeConn({ name: "polling" }).transport)).toBe(false);
    expect(takesPreEncodedFrames(fakeConn({ name: "webtransport" }).transport)).toBe(false);
  });
});

describe("writeDirect", () => {
  const frame = [Buffer.from([0x81, 0x01, 0x34])];

  test("writes the frame through the sender when engine.io has nothing queued or in flight", () => {
    const c = fakeConn({});
    expect(writeDirect(c, frame)).toBe(true);
    expect(c.sent).toEqual([frame]);
  });

  test("refuses (engine.io must write, in order) when a packet is queued, a write is in flight or the socket is not open", () => {
    for (const c of [
      fakeConn({}, ["queued"]),
      fakeConn({ writable: false }),
      fakeConn({ socket: { readyState: 2, _sender: { sendFrame: () => undefined } } }),
    ]) {
      expect(writeDirect(c, frame)).toBe(false);
      expect(c.sent).toEqual([]);
    }
  });
});

describe("missingForSharedFrames", () => {
  const engineIo = { transports: { websocket: { prototype: { _canSendPreEncodedFrame() {} } } } };
  const ws = { Sender: { prototype: { sendFrame() {} } } };

  test("the installed engine.io and ws have everything the shared-frame write needs", () => {
    const libs = installedFrameLibs();
    expect(missingForSharedFrames(libs)).toBeNull();
    expect(libs.versions).toMatch(/^engine\.io \d+\.\d+\.\d+, ws \d+\.\d+\.\d+$/);
  });

  test("a ws without Sender.prototype.sendFrame is named", () => {
    expect(missingForSharedFrames({ engineIo, ws })).toBeNull();
    expect(missingForSharedFrames({ engineIo, ws: { Sender: { prototype: {} } } })).toMatch(/Sender\.prototype\.sendFrame/);
    expect(missingForSharedFrames({ engineIo, ws: {} })).toMatch(/Sender\.prototype\.sendFrame/);
  });

  test("an engine.io whose websocket transport no longer takes pre-encoded frames is named", () => {
    expect(missingForSharedFrames({ engineIo: { transports: { websocket: { prototype: {} } } }, ws })).toMatch(/_canSendPreEncodedFrame/);
    expect(missingForSharedFrames({ engineIo: {}, ws })).toMatch(/_canSendPreEncodedFrame/);
  });
});

describe("missingOnConnection", () => {
  test("a websocket connection with writeBuffer, writable and _sender.sendFrame is complete and fine", () => {
    expect(missingOnConnection(fakeConn({}))).toEqual({ missing: null, complete: true });
  });

  test("each missing instance field is named", () => {
    expect(missingOnConnection({ ...fakeConn({}), writeBuffer: undefined as unknown as unknown[] }).missing).toMatch(/writeBuffer/);
    expect(missingOnConnection(fakeConn({ writable: undefined as unknown as boolean })).missing).toMatch(/writable/);
    expect(missingOnConnection(fakeConn({ socket: undefined })).missing).toMatch(/ws socket/);
    expect(missingOnConnection(fakeConn({ socket: { readyState: 1, _sender: {} } })).missing).toMatch(/_sender\.sendFrame/);
    expect(missingOnConnection(fakeConn({ socket: { readyState: 1 } })).missing).toMatch(/_sender\.sendFrame/);
  });

  test("a polling connection is checked for engine.io's part only and left incomplete", () => {
    expect(missingOnConnection(fakeConn({ name: "polling", socket: undefined }))).toEqual({ missing: null, complete: false });
  });
});
