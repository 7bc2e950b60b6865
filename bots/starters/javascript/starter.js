#!/usr/bin/env node
// A Dungeon of Doom bot for the classic world, on Node's standard library only.
//
//   node starter.js --host 127.0.0.1 --port 40004 --name Ada --game duel
//
// It says EXTEND bot, JOIN <game> (with --game) and HELLO <name>, then, until the
// server's final line (WIN, LOSE or BYE, which it prints and exits 0 on): LOOK,
// remember what it saw, PICKUP the gold it stands on, and walk the shortest known path
// to the nearest gold (to the nearest exit once it holds enough), or else to the nearest
// known square next to one it has never seen. Errors go to stderr, with exit status 1.
// The replies are in docs/protocol.md; README.md says how to enter it in dod-arena.
'use strict';

const net = require('node:net');
const readline = require('node:readline');

const STEPS = { N: [-1, 0], E: [0, 1], S: [1, 0], W: [0, -1] }; // tried in this order
const FINAL = /^(WIN|LOSE|BYE)( |$)/;

class Ended extends Error {} // the server's final line: the game is over
class Failed extends Error {} // something we cannot play on from

function parseArguments(words) {
  const options = { host: '127.0.0.1', port: '40004', name: `js-${process.pid}`, game: null };
  for (let i = 0; i < words.length; i += 2) {
    const key = words[i].replace(/^--/, '');
    if (!words[i].startsWith('--') || !(key in options) || words[i + 1] === undefined) {
      console.error('usage: node starter.js [--host H] [--port P] [--name N] [--game G]');
      process.exit(2);
    }
    options[key] = words[i + 1];
  }
  return options;
}

// One line at a time from the server; a final line ends the game wherever it comes.
class Connection {
  constructor(socket) {
    this.socket = socket;
    const lines = readline.createInterface({ input: socket, crlfDelay: Infinity });
    socket.on('close', () => lines.close()); // a reset ends the lines too, not only an end
    this.lines = lines[Symbol.asyncIterator]();
  }

  async readLine() {
    const { value, done } = await this.lines.next();
    if (done) throw new Failed('the server closed the connection without a final line');
    if (FINAL.test(value)) throw new Ended(value);
    return value;
  }

  // Send a command and read its one-line reply; ERROR ends the bot.
  async ask(command) {
    this.socket.write(command + '\n');
    const reply = await this.readLine();
    if (reply.startsWith('ERROR')) throw new Failed(`${command}: ${reply}`);
    return reply;
  }

  async look() {
    const header = await this.ask('LOOK');
    if (header !== 'LOOKREPLY') throw new Failed(`LOOK: ${header}`);
    const rows = [];
    for (let i = 0; i < 5; i++) rows.push(await this.readLine());
    return rows;
  }
}

// What the bot has seen, in squares relative to where it started: "r,c" -> tile.
class Memory {
  constructor() {
    this.row = 0;
    this.column = 0;
    this.tiles = new Map();
  }

  see(rows) {
    rows.forEach((line, r) => {
      [...line].forEach((tile, c) => {
        // Corners are always X; another player hides the tile under it.
        if ('XPB'.includes(tile)) return;
        this.tiles.set(`${this.row + r - 2},${this.column + c - 2}`, tile);
      });
    });
  }

  here() {
    return this.tiles.get(`${this.row},${this.column}`);
  }

  isOpen(row, column) {
    const tile = this.tiles.get(`${row},${column}`);
    return tile !== undefined && tile !== '#';
  }

  isFrontier(row, column) {
    return Object.values(STEPS).some(([dr, dc]) => !this.tiles.has(`${row + dr},${column + dc}`));
  }

  // The directions of a shortest walk over open squares to the nearest other square
  // where isGoal(row, column, tile) holds; null if none can be reached.
  route(isGoal) {
    const cameFrom = new Map([[`${this.row},${this.column}`, null]]);
    const queue = [[this.row, this.column]];
    for (let head = 0; head < queue.length; head++) {
      const [row, column] = queue[head];
      if (head > 0 && isGoal(row, column, this.tiles.get(`${row},${column}`))) {
        const path = [];
        for (let link = cameFrom.get(`${row},${column}`); link; link = cameFrom.get(link.from)) {
          path.unshift(link.direction);
        }
        return path;
      }
      for (const [direction, [dr, dc]] of Object.entries(STEPS)) {
        const key = `${row + dr},${column + dc}`;
        if (!cameFrom.has(key) && this.isOpen(row + dr, column + dc)) {
          cameFrom.set(key, { from: `${row},${column}`, direction });
          queue.push([row + dr, column + dc]);
        }
      }
    }
    return null;
  }
}

async function play(connection, options) {
  await connection.ask('EXTEND bot'); // others see us as B
  if (options.game) await connection.ask(`JOIN ${options.game}`);
  const hello = await connection.ask(`HELLO ${options.name}`); // "GOLD 3"
  if (!/^GOLD \d+$/.test(hello)) throw new Failed(`HELLO: ${hello}`);
  const goal = Number(hello.slice('GOLD '.length));
  console.error(`playing ${options.game || 'default'} as ${options.name}: ${goal} gold to win`);
  const memory = new Memory();
  let gold = 0;
  let blocked = 0; // moves failed in a row: another player is in the way
  for (;;) {
    memory.see(await connection.look());
    if (memory.here() === 'G') {
      const reply = await connection.ask('PICKUP'); // "SUCCESS, GOLD COINS: 2" or "FAIL"
      if (reply.startsWith('SUCCESS, GOLD COINS: ')) gold = Number(reply.split(': ')[1]);
      memory.tiles.set(`${memory.row},${memory.column}`, '.');
      continue;
    }
    const wanted = gold >= goal ? 'E' : 'G';
    let path =
      memory.route((r, c, tile) => tile === wanted) ||
      memory.route((r, c) => memory.isFrontier(r, c));
    const open = Object.keys(STEPS).filter((d) =>
      memory.isOpen(memory.row + STEPS[d][0], memory.column + STEPS[d][1]),
    );
    if (!path && wanted === 'E' && memory.here() === 'E') path = open; // step off, then back
    if (!path || path.length === 0) {
      console.error('seen everything reachable and cannot win: quitting');
      await connection.ask('QUIT'); // answered by the final line BYE
      throw new Failed('QUIT was not answered with BYE');
    }
    const direction = blocked > 0 ? open[blocked % open.length] : path[0];
    if ((await connection.ask(`MOVE ${direction}`)) !== 'SUCCESS') {
      blocked += 1;
      continue;
    }
    blocked = 0;
    memory.row += STEPS[direction][0];
    memory.column += STEPS[direction][1];
    if (memory.here() === 'E' && gold >= goal) await connection.readLine(); // WIN
  }
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  let socket;
  try {
    socket = net.createConnection({ host: options.host, port: Number(options.port) });
    await new Promise((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
  } catch (error) {
    console.error(`cannot connect to ${options.host}:${options.port}: ${error.message}`);
    return 1;
  }
  socket.on('error', () => {}); // a reset after the final line is no news
  try {
    await play(new Connection(socket), options);
  } catch (error) {
    if (error instanceof Ended) {
      console.log(error.message); // WIN, LOSE or BYE, and why
      return 0;
    }
    console.error(error instanceof Failed ? error.message : error.stack);
    return 1;
  } finally {
    socket.destroy();
  }
}

main().then((status) => {
  process.exitCode = status;
});
