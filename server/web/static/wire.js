// The game's line protocol over the /ws WebSocket, exactly as a TCP client speaks it:
// lines in, whole replies out (multi-line replies gathered), and which lines are pushes.

/** Replies whose header says how many lines follow (the count is the word at `at`). */
const COUNTED = { VIEW: 1, MAP: 1, HELP: 1, GAMES: 1, LEADERBOARD: 2, BESTS: 2, LEVEL: 2, BOARD: 1 };

/** First words of lines the server pushes between replies (docs/protocol.md, "Pushed lines"). */
export const PUSHED = new Set([
  "JOINED", "LEFT", "SAW", "NOTICE", "ROUND", "MESSAGE", "VIEW", "LEVEL", "BOARD", "GAMEOVER",
  "TURN", "STARTTURN", "ENDTURN", "HITMOD", "WIN", "LOSE", "BYE",
]);

export class Wire {
  /** handlers: open(), line(text), block(kind, header, rows), close(). */
  constructor(handlers) {
    this.handlers = handlers;
    this.buffer = "";
    this.block = null;
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    this.socket = new WebSocket(`${scheme}://${location.host}/ws`);
    this.socket.onopen = () => handlers.open && handlers.open();
    this.socket.onmessage = (event) => this.receive(event.data);
    this.socket.onclose = () => handlers.close && handlers.close();
  }

  send(line) {
    if (this.socket.readyState === WebSocket.OPEN) this.socket.send(line + "\n");
  }

  close() {
    this.socket.onclose = null;
    this.socket.close();
  }

  receive(text) {
    this.buffer += text;
    let end;
    while ((end = this.buffer.indexOf("\n")) >= 0) {
      const line = this.buffer.slice(0, end).replace(/\r$/, "");
      this.buffer = this.buffer.slice(end + 1);
      this.line(line);
    }
  }

  finish(block) {
    this.block = null;
    this.handlers.block && this.handlers.block(block.kind, block.header, block.rows);
  }

  line(line) {
    const block = this.block;
    if (block) {
      block.rows.push(line);
      if (block.size === null) block.size = line.length === 7 ? 7 : 5; // a LOOK is 5x5 or 7x7
      if (block.rows.length >= block.size) this.finish(block);
      return;
    }
    const words = line.split(" ");
    const at = COUNTED[words[0]];
    if (at && /^\d+$/.test(words[at] || "")) {
      const size = Number(words[at]);
      const kind = words[0];
      if (kind === "BOARD" || size > 0) {
        this.block = { kind, header: line, size, rows: [] };
        if (size === 0) this.finish(this.block);
        return;
      }
    }
    if (line === "LOOKREPLY") {
      this.block = { kind: "LOOKREPLY", header: line, size: null, rows: [] };
      return;
    }
    this.handlers.line(line);
  }
}

/** The fields of a GAME line: GAME <name> world=... map=... players=... turn=... */
export function gameFields(line) {
  return Object.fromEntries(
    line.split(" ").slice(2).map((word) => word.split("=")).filter((pair) => pair.length === 2),
  );
}

/** A BOARD line, `<name>: level=1 row=2 col=3 gold=0 moves=4 hp=3`, as an object. */
export function parseSeat(line) {
  const cut = line.indexOf(": "); // a name ends at its first ": "
  const seat = { name: line.slice(0, cut) };
  for (const word of line.slice(cut + 2).split(" ")) {
    const [key, value] = word.split("=");
    if (key && value !== undefined) seat[key] = Number(value);
  }
  return seat;
}
