// The Dungeon of Doom web page: games, a live view, a replay viewer, play, leaderboards.
// Plain modern JavaScript modules, no build step. Watching and playing speak the game's own
// line protocol over the /ws WebSocket, as a TCP client does (WATCH, HELLO, MOVE...); the
// board is drawn from what the server says (VIEW, LEVEL, BOARD, HELP), for any world.

import { Wire, PUSHED, gameFields, parseSeat } from "./wire.js";
import { Board, colourOf } from "./board.js";
import { tilesFromHelp } from "./tiles.js";
import { PlayersPanel, ScoreChart, EventLog, tellLine, escapeHtml } from "./panels.js";
import { showTournaments, showTournament } from "./tournaments.js";

const page = document.getElementById("page");
const REPLAY_PAGE = 400; // frames asked for at once: a long replay is read in pieces

let current = null; // what the page holds open (sockets, timers), closed on leaving it

function leavePage() {
  if (current && current.close) current.close();
  current = null;
}

async function getJSON(url) {
  const response = await fetch(url, { cache: "no-store" });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

function appendLog(element, line) {
  const atBottom = element.scrollTop + element.clientHeight >= element.scrollHeight - 4;
  const lines = (element.textContent + line + "\n").split("\n");
  element.textContent = lines.slice(-400).join("\n");
  if (atBottom) element.scrollTop = element.scrollHeight;
}

// -- the viewer: board and panels, for watching, playing and replays ----------------------

function viewerHtml({ chat = true, extra = "" } = {}) {
  return `<div class="viewer"><section class="stage"><div id="board"></div></section>
    <aside class="side">${extra}
      <div class="panel"><h2>Players</h2><div id="players" class="cards"></div></div>
      <div class="panel"><h2>Gold over the game</h2><canvas id="chart" class="chart"></canvas></div>
      <div class="panel"><h2>Events</h2><ol id="events" class="events"></ol></div>
      ${chat ? `<div class="panel"><h2>Chat</h2><pre class="log" id="chat"></pre></div>` : ""}
    </aside></div>`;
}

function makeViewer({ onJump } = {}) {
  const board = new Board(page.querySelector("#board"));
  const players = new PlayersPanel(page.querySelector("#players"), {
    onFollow: (name) => follow(name),
  });
  const chart = new ScoreChart(page.querySelector("#chart"));
  const events = new EventLog(page.querySelector("#events"), { onJump });
  const viewer = { board, players, chart, events, onFollow: null };
  board.onLevels = (count) => (players.levels = count);
  function follow(name) {
    board.setFollow(name);
    players.follow = name;
    players.show(board.seats);
    if (viewer.onFollow) viewer.onFollow(name);
  }
  viewer.follow = follow;
  return viewer;
}

async function loadRatings(viewer, world) {
  try {
    const { standings } = await getJSON(`/api/leaderboard?world=${encodeURIComponent(world)}`);
    viewer.players.ratings = Object.fromEntries((standings || []).map((s) => [s.name, s.rating]));
    viewer.players.show(viewer.board.seats);
  } catch (error) {
    // a server without records: no ratings to show
  }
}

/** Watch `game` over a WebSocket and draw it in `viewer`; returns the wire. */
function spectate(game, viewer, { onInfo, onSeats, onLine } = {}) {
  let levels = [], step = 0, goal = 0, world = null;
  const wire = new Wire({
    open: () => {
      wire.send("EXTEND events chat board");
      wire.send(`WATCH ${game}`);
      wire.send("HELLO"); // a spectator's HELLO: the gold to win (GOLD n)
      wire.send("HELP"); // the world's glyphs, for the tile set
    },
    block: (kind, header, rows) => {
      if (kind === "VIEW") {
        levels = [rows, ...levels.slice(1)];
        viewer.board.setLevels([...levels]);
      } else if (kind === "LEVEL") {
        const number = Number(header.split(" ")[1]);
        while (levels.length < number - 1) levels.push([]);
        levels[number - 1] = rows;
        viewer.board.setLevels([...levels]);
      } else if (kind === "BOARD") {
        const cell = Number((/cell=(\d+)/.exec(header) || [0, 1])[1]);
        const seats = rows.map(parseSeat);
        step += 1;
        viewer.board.setLevels([...levels], cell);
        viewer.board.setSeats(seats);
        viewer.players.show(seats);
        viewer.chart.add(step, seats);
        viewer.chart.draw();
        if (onSeats) onSeats(seats, step);
      } else if (kind === "HELP") {
        viewer.board.setTiles(tilesFromHelp(rows));
      }
    },
    line: (line) => {
      const word = line.split(" ")[0];
      if (word === "GAME") {
        const info = gameFields(line);
        if (info.world && info.world !== world) {
          world = info.world;
          loadRatings(viewer, world);
        }
        if (onInfo) onInfo(info);
        return;
      }
      if (word === "GOLD") {
        goal = Number(line.split(" ")[1]) || 0;
        viewer.players.goal = goal;
        viewer.players.show(viewer.board.seats);
        return;
      }
      if (word === "EXTENDED") return;
      if (word === "MESSAGE") {
        const chat = page.querySelector("#chat");
        if (chat) appendLog(chat, line.slice(8));
        return;
      }
      if (word === "GAMEOVER") levels = [];
      const told = tellLine(line, goal);
      if (told) viewer.events.add(step, told);
      if (onLine) onLine(line);
    },
    close: () => viewer.events.add(step, { player: null, text: "(the connection closed)" }),
  });
  return wire;
}

// -- the list of games --------------------------------------------------------------------

function progress(game) {
  if (game.round === null) return `playing on ${game.node}`; // another node's: it alone counts rounds
  if (game.turn === null || game.turn === undefined) return `${game.round} move${game.round === 1 ? "" : "s"}`;
  return `round ${game.round}`;
}

async function showGames() {
  page.innerHTML = `<h1>Games</h1><div class="controls"><button id="refresh">Refresh</button></div>
    <div class="scroll"><table id="games"><thead><tr><th>game</th><th>world</th><th>map</th><th>players</th>
    <th>watchers</th><th>played</th><th></th></tr></thead><tbody></tbody></table></div>
    <h1 style="margin-top:1.5rem">Recent replays</h1><div id="replays">loading…</div>`;
  const fill = async () => {
    const { games } = await getJSON("/api/games");
    page.querySelector("#games tbody").innerHTML = games
      .map((g) => {
        const name = encodeURIComponent(g.name);
        return `<tr data-game="${escapeHtml(g.name)}"><td>${escapeHtml(g.name)}</td><td>${escapeHtml(g.world)}</td>
          <td>${escapeHtml(g.map)}</td><td>${g.players}${g.limit === null ? "" : " / " + g.limit}</td>
          <td>${g.watchers}</td><td>${g.players > 0 ? escapeHtml(progress(g)) : "waiting"}</td>
          <td><a href="#/watch/${name}">watch</a> · <a href="#/play/${name}">play</a></td></tr>`;
      })
      .join("");
  };
  page.querySelector("#refresh").onclick = fill;
  await fill();
  await showReplayList(page.querySelector("#replays"), 10);
}

/** A game's players by place, with how each game ended ("1. ada (win, gold 3)"). */
function resultsText(players) {
  if (!players) return `<span class="muted">not recorded</span>`;
  return players.map((p) => `${p.place}. ${escapeHtml(p.name ?? "(no name)")} (${escapeHtml(p.outcome)}, gold ${p.gold})`).join(" · ");
}

async function showReplayList(element, limit, order = "time") {
  const { replays, ordered } = await getJSON(`/api/replays?order=${encodeURIComponent(order)}`);
  if (!replays.length) {
    element.textContent = "No replays yet (the server writes one per game played).";
    return;
  }
  element.innerHTML = `<p class="muted" id="replay-order">${escapeHtml(ordered)}</p>
    <div class="scroll"><table id="replay-list"><thead><tr><th>replay</th><th>game</th><th>world</th><th>map</th>
    <th>players and results</th><th>rounds</th><th>began</th><th>ended</th></tr></thead><tbody>${replays
      .slice(0, limit)
      .map(
        (r) => `<tr data-file="${escapeHtml(r.file)}"><td><a href="#/replay/${encodeURIComponent(r.file)}">${escapeHtml(r.file)}</a></td>
        <td>${escapeHtml(String(r.game))}</td><td>${escapeHtml(String(r.world))}</td>
        <td>${escapeHtml(String(r.map))}</td><td class="results">${resultsText(r.players)}</td><td>${r.rounds ?? ""}</td>
        <td>${escapeHtml(String(r.started ?? "").slice(0, 19).replace("T", " "))}</td>
        <td>${escapeHtml(String(r.written ?? "").slice(0, 19).replace("T", " "))}</td></tr>`,
      )
      .join("")}</tbody></table></div>`;
}

async function showReplays(query) {
  const order = query && query.get("order") === "name" ? "name" : "time";
  page.innerHTML = `<h1>Replays</h1><div class="controls"><label>order <select id="order">
    <option value="time"${order === "time" ? " selected" : ""}>newest first</option>
    <option value="name"${order === "name" ? " selected" : ""}>by name</option></select></label></div>
    <div id="replays">loading…</div>`;
  page.querySelector("#order").onchange = (event) => (location.hash = `#/replays?order=${event.target.value}`);
  await showReplayList(page.querySelector("#replays"), 500, order);
}

// -- watching -----------------------------------------------------------------------------

function showWatch(name) {
  page.innerHTML = `<h1>Watching <span id="name"></span></h1>
    <div class="status" id="status">connecting…</div>
    <div class="controls"><label>follow <select id="follow"><option value="">nobody</option></select></label></div>
    ${viewerHtml()}`;
  page.querySelector("#name").textContent = name;
  const status = page.querySelector("#status");
  const select = page.querySelector("#follow");
  const viewer = makeViewer();
  let info = {};
  const showStatus = (seats) => {
    status.innerHTML = `<b>${escapeHtml(info.world || "?")}</b> world · map <b>${escapeHtml(info.map || "?")}</b>
      · <b id="count">${seats.length}</b> player${seats.length === 1 ? "" : "s"} · ${escapeHtml(info.watchers || "0")} watching`;
  };
  viewer.onFollow = (who) => (select.value = who || "");
  select.onchange = () => viewer.follow(select.value || null);
  const wire = spectate(name, viewer, {
    onInfo: (fields) => {
      info = fields;
      showStatus(viewer.board.seats);
    },
    onSeats: (seats) => {
      showStatus(seats);
      const options = ["", ...seats.map((s) => s.name)];
      if (select.dataset.names !== options.join("\n")) {
        select.dataset.names = options.join("\n");
        const chosen = select.value;
        select.innerHTML = options.map((n) => `<option value="${escapeHtml(n)}">${n ? escapeHtml(n) : "nobody"}</option>`).join("");
        select.value = chosen;
      }
    },
  });
  current = { close: () => { wire.close(); viewer.board.destroy(); } };
}

// -- playing ------------------------------------------------------------------------------

const MOVES = {
  ArrowUp: "N", ArrowDown: "S", ArrowLeft: "W", ArrowRight: "E",
  Home: "NW", PageUp: "NE", End: "SW", PageDown: "SE",
};

function showPlay(name) {
  page.innerHTML = `<h1>Playing <span id="name"></span></h1>
    <div class="controls" id="join"><label>Your name <input id="player" maxlength="20"></label>
      <button id="start">Enter the dungeon</button></div>
    <div class="status" id="status"></div><div class="status" id="me"></div><div class="status" id="battle"></div>
    <div class="outcome" id="outcome"></div>
    ${viewerHtml({ extra: `<div class="panel"><h2>Controls</h2><div class="pad">
        <button data-key="Home">↖</button><button data-key="ArrowUp">↑</button><button data-key="PageUp">↗</button>
        <button data-key="ArrowLeft">←</button><button data-key="p">pick up</button><button data-key="ArrowRight">→</button>
        <button data-key="End">↙</button><button data-key="ArrowDown">↓</button><button data-key="PageDown">↘</button></div>
        <div class="keys">arrows: move · Home/PgUp/End/PgDn: diagonals (baddies) · p: pick up · l: look ·
        a then an arrow: attack (battle) · t: end turn (battle) · .: stay (rounds)</div>
        <h2>Your view (LOOK)</h2><pre class="look" id="look" tabindex="0"></pre></div>
      <div class="panel"><h2>Commands and replies</h2><pre class="log" id="log"></pre></div>` })}`;
  page.querySelector("#name").textContent = name;
  const input = page.querySelector("#player");
  input.value = "web" + Math.floor(Math.random() * 9000 + 1000);
  const log = page.querySelector("#log"), look = page.querySelector("#look");
  const status = page.querySelector("#status"), outcome = page.querySelector("#outcome");
  const mine = page.querySelector("#me");
  const viewer = makeViewer();
  let wire = null, watch = null, world = "?", attacking = false, over = false, player = null, goal = 0;
  // The moves the world offers, from its HELP ("directions here: N E S W ..."): the pad
  // shows only those (no diagonals in the classic world).
  let moves = new Set(["N", "E", "S", "W"]);
  const showMoves = () => {
    for (const button of page.querySelectorAll(".pad button")) {
      const direction = MOVES[button.dataset.key];
      if (direction) button.hidden = !moves.has(direction);
    }
  };
  showMoves();
  const pending = []; // commands sent and not yet answered, oldest first
  // The battle world's state, from its own lines: AP n, HP n, STARTTURN n, ENDTURN, TURN p,
  // HITMOD d and the NOTICE that says what the player carries.
  const battle = { hp: null, ap: null, turn: null, items: "nothing" };
  const showBattle = () => {
    if (battle.hp === null && battle.ap === null && battle.turn === null) return;
    page.querySelector("#battle").innerHTML = `HP <b>${battle.hp ?? "?"}</b> · AP <b>${battle.ap ?? "?"}</b>
      · carrying <b>${escapeHtml(battle.items)}</b> · turn: <b>${escapeHtml(battle.turn ?? "?")}</b>`;
  };
  const noteBattle = (line) => {
    const [word, value] = [line.split(" ")[0], line.slice(line.indexOf(" ") + 1)];
    if (word === "HP") battle.hp = Number(value);
    else if (word === "AP") battle.ap = Number(value);
    else if (word === "STARTTURN") [battle.turn, battle.ap] = ["yours", Number(value)];
    else if (word === "ENDTURN") [battle.turn, battle.ap] = ["over", 0];
    else if (word === "TURN") battle.turn = value;
    else if (word === "HITMOD" && battle.hp !== null) battle.hp += Number(value);
    else if (line.startsWith("NOTICE You now carry: ")) battle.items = line.slice(22).replace(/\.$/, "");
    else return;
    showBattle();
  };
  const showMine = (seats) => {
    const me = seats.find((s) => s.name === player);
    if (!me) return;
    const extras = Object.entries(me)
      .filter(([k]) => !["name", "row", "col", "gold", "moves"].includes(k) && (k !== "level" || viewer.players.levels > 1))
      .map(([k, v]) => ` · ${escapeHtml(k.length === 2 ? k.toUpperCase() : k)} <b>${v}</b>`).join("");
    mine.innerHTML = `<span class="swatch round" style="background:${colourOf(player)}"></span> you: gold <b id="my-gold">${me.gold}${goal > 0 ? ` of ${goal}` : ""}</b>
      · moves <b>${me.moves}</b>${extras}`;
  };

  const send = (line) => {
    pending.push(line);
    wire.send(line);
  };
  const answered = (reply) => {
    const command = pending.shift();
    appendLog(log, command === undefined ? `  ${reply}` : `> ${command}  ⇒ ${reply}`);
  };
  const act = (command) => {
    if (over) return;
    send(command);
    send("LOOK");
  };
  const press = (key) => {
    if (!wire || over) return false;
    let command = null;
    if (MOVES[key] && !moves.has(MOVES[key])) return false; // not a move of this world
    if (MOVES[key]) command = `${attacking ? "ATTACK" : "MOVE"} ${MOVES[key]}`;
    else if (key === "p") command = "PICKUP";
    else if (key === "l") command = "LOOK";
    else if (key === "t") command = "ENDTURN";
    else if (key === ".") command = "STAY";
    else if (key === "a") {
      attacking = true;
      status.dataset.attack = "1";
      return true;
    }
    if (!command) return false;
    attacking = false;
    if (command === "LOOK") send(command);
    else act(command);
    return true;
  };
  const onKey = (event) => {
    if (event.target === input || event.altKey || event.ctrlKey || event.metaKey) return;
    if (press(event.key)) event.preventDefault();
  };
  for (const button of page.querySelectorAll(".pad button")) button.onclick = () => press(button.dataset.key);

  page.querySelector("#start").onclick = () => {
    page.querySelector("#join").style.display = "none";
    player = input.value.trim() || "web";
    viewer.board.me = player;
    viewer.players.me = player;
    watch = spectate(name, viewer, {
      onSeats: (seats) => {
        showMine(seats);
        if (!viewer.board.follow && seats.some((s) => s.name === player)) viewer.follow(player);
      },
      onInfo: () => {},
    });
    wire = new Wire({
      open: () => {
        send("EXTEND events chat");
        send(`JOIN ${name}`); // answered with the GAME line, which names the world
        send(`HELLO ${player}`);
        send("HELP"); // says which ways a player moves in this world
        send("LOOK");
        look.focus();
      },
      block: (kind, header, rows) => {
        if (kind === "LOOKREPLY") {
          look.textContent = rows.join("\n");
          answered("LOOKREPLY " + rows.join(" "));
        } else if (PUSHED.has(kind)) {
          // (a player gets no VIEW; nothing to pair)
        } else if (kind === "HELP") {
          const said = rows.map((row) => row.match(/directions here:\s*([A-Z ]+)/)).find(Boolean);
          if (said) moves = new Set(said[1].trim().split(/\s+/));
          showMoves();
          answered(header);
        } else answered([header, ...rows].join("\n"));
      },
      line: (line) => {
        const word = line.split(" ")[0];
        if (PUSHED.has(word)) {
          noteBattle(line);
          const told = tellLine(line, goal);
          if (told && word !== "SAW" && word !== "JOINED" && word !== "LEFT") appendLog(log, `  ${told.text}`);
          if (word === "WIN" || word === "LOSE" || word === "BYE") {
            over = true;
            outcome.textContent = line;
            appendLog(log, line);
          }
          return;
        }
        if (word === "GAME") {
          world = gameFields(line).world || world;
          status.innerHTML = `<b>${escapeHtml(world)}</b> world · you are <b>${escapeHtml(player)}</b>`;
          if (world === "battle") {
            send("HPGET");
            send("APGET");
          }
        } else if (word === "GOLD") {
          goal = Number(line.split(" ")[1]) || 0;
        }
        noteBattle(line);
        answered(line);
      },
      close: () => {
        over = true;
        appendLog(log, "(the connection closed)");
      },
    });
  };
  document.addEventListener("keydown", onKey);
  current = {
    close: () => {
      document.removeEventListener("keydown", onKey);
      if (wire) wire.close();
      if (watch) watch.close();
      viewer.board.destroy();
    },
  };
}

// -- replays ------------------------------------------------------------------------------

/** A replay's frames, read a page at a time (`?from=&count=`) and kept as they come. */
class ReplayFrames {
  constructor(file) {
    this.file = file;
    this.frames = [];
    this.total = null;
    this.meta = null;
    this.loading = null;
  }

  url(from) {
    return `/api/replays/${encodeURIComponent(this.file)}?from=${from}&count=${REPLAY_PAGE}`;
  }

  /** Read the frames from `from` (one page). A paging server says where the next page
   * starts (`next`, `null` after the last frame), so the count is known once the last
   * page is read; a server that does not page (no `next`) gives every frame at once. */
  async load(from) {
    const body = await getJSON(this.url(from));
    if (!this.meta) this.meta = body;
    const frames = body.frames || [];
    const paged = body.next !== undefined;
    const start = paged ? (Number.isInteger(body.from) ? body.from : from) : 0;
    for (let i = 0; i < frames.length; i++) this.frames[start + i] = frames[i];
    if (!paged) this.total = frames.length;
    else if (body.next === null) this.total = start + frames.length;
    return frames.length;
  }

  loaded() {
    let n = 0;
    while (this.frames[n]) n++;
    return n;
  }

  /** The map rows (level 1 first) in effect at frame `at`: the latest drawn at or before it. */
  levelsAt(at) {
    let first = null, more = null;
    for (let i = at; i >= 0 && (first === null || more === null); i--) {
      const frame = this.frames[i];
      if (!frame) break;
      if (first === null && frame.view) first = frame.view;
      if (more === null && frame.levels) more = frame.levels;
    }
    return [first || [], ...(more || [])];
  }
}

async function showReplay(file, query) {
  page.innerHTML = `<h1>Replay <span id="name"></span></h1><div class="status" id="status">loading…</div>
    <div class="controls replay-controls"><button id="play">▶ Play</button><button id="back">◀ Step</button>
      <button id="step">Step ▶</button>
      <label>speed <input id="speed" type="number" min="0.1" max="1000" step="any" value="4"> steps/s</label>
      <input type="range" id="slider" min="0" value="0" aria-label="step">
      <label>step <input id="jump" type="number" min="0" value="0"></label> <span id="where"></span>
      <label>follow <select id="follow"><option value="">nobody</option></select></label>
      <a id="link" href="#">link to this step</a> · <a id="download" download>download</a></div>
    ${viewerHtml({ chat: false })}`;
  page.querySelector("#name").textContent = file;
  const source = new ReplayFrames(file);
  try {
    await source.load(0);
  } catch (error) {
    page.querySelector("#status").textContent = `cannot show this replay: ${error.message}`;
    return;
  }
  const replay = source.meta;
  let index = 0, timer = null, closed = false;
  const viewer = makeViewer({ onJump: (step) => { pause(); show(step); } });
  const slider = page.querySelector("#slider"), where = page.querySelector("#where");
  const jump = page.querySelector("#jump"), speed = page.querySelector("#speed");
  const playButton = page.querySelector("#play"), select = page.querySelector("#follow");
  const link = page.querySelector("#link");
  page.querySelector("#download").href = `/replays/${encodeURIComponent(file)}`;
  const names = Object.values(replay.players || {});
  page.querySelector("#status").innerHTML = `<b>${escapeHtml(String(replay.world))}</b> world · map
    <b>${escapeHtml(String(replay.map))}</b> · seed ${escapeHtml(String(replay.seed))} · players:
    ${names.map((n) => `<span class="name" style="color:${colourOf(n)}">${escapeHtml(n)}</span>`).join(", ") || "none named"}
    ${(replay.logs || []).length ? ` · bots' output: ${replay.logs.map((l) => `<a class="log" href="/replays/${encodeURIComponent(l.file)}" target="_blank">${escapeHtml(l.bot)}</a>`).join(", ")}` : ""}`;
  select.innerHTML = `<option value="">nobody</option>` + names.map((n) => `<option>${escapeHtml(n)}</option>`).join("");
  viewer.board.setTiles(tilesFromHelp(replay.notes || [])); // the world's HELP notes
  viewer.players.goal = replay.goal || 0;
  if (names.length) loadRatings(viewer, replay.world);

  let told = 0; // frames whose events are in the list and the chart
  let levelled = false; // whether the world has shown more than one level
  const tellUpTo = (end) => {
    for (; told < end && source.frames[told]; told++) {
      const frame = source.frames[told];
      if (frame.levels && frame.levels.length) levelled = true;
      for (const event of frame.events || []) viewer.events.add(told, event);
      viewer.chart.add(told, frame.players || []);
    }
    viewer.chart.last = Math.max(viewer.chart.last, (source.total || source.loaded()) - 1);
  };
  const count = () => source.total ?? source.loaded();
  const updateLink = () => {
    const params = new URLSearchParams({ step: String(index) });
    if (viewer.board.follow) params.set("follow", viewer.board.follow);
    const hash = `#/replay/${encodeURIComponent(file)}?${params}`;
    link.href = hash;
    history.replaceState(null, "", hash);
  };
  const show = async (at, { animate = false } = {}) => {
    const last = Math.max(0, count() - 1);
    index = Math.max(0, Math.min(last, at));
    if (!source.frames[index]) {
      await source.load(Math.floor(index / REPLAY_PAGE) * REPLAY_PAGE);
      if (closed) return;
    }
    const frame = source.frames[index];
    if (!frame) return;
    viewer.board.duration = timer ? Math.min(180, 800 / Number(speed.value || 4)) : 180;
    viewer.board.setLevels(source.levelsAt(index), frame.cell || 1);
    viewer.board.setSeats(frame.players || [], { animate });
    viewer.players.show(frame.players || []);
    viewer.events.mark(index);
    viewer.chart.marker = index;
    viewer.chart.draw();
    slider.max = String(last);
    slider.value = String(index);
    jump.max = String(last);
    jump.value = String(index);
    const followed = viewer.board.follow ? viewer.board.seatOf(viewer.board.follow) : null;
    where.textContent = `step ${index} of ${last} · round ${frame.round}` +
      (followed && (levelled || viewer.board.levels.length > 1) ? ` · ${viewer.board.follow} on level ${followed.level}` : "") +
      (source.total === null ? " · reading…" : "");
    where.dataset.step = String(index);
    updateLink();
  };
  const pause = () => {
    clearTimeout(timer);
    timer = null;
    playButton.textContent = "▶ Play";
  };
  const tick = async () => {
    if (index >= count() - 1) return pause();
    await show(index + 1, { animate: true });
    if (timer) timer = setTimeout(tick, 1000 / Math.max(0.1, Number(speed.value) || 4));
  };
  const play = () => {
    if (index >= count() - 1) show(0);
    playButton.textContent = "❚❚ Pause";
    timer = setTimeout(tick, 0);
  };
  playButton.onclick = () => (timer ? pause() : play());
  page.querySelector("#step").onclick = () => { pause(); show(index + 1, { animate: true }); };
  page.querySelector("#back").onclick = () => { pause(); show(index - 1); };
  slider.oninput = () => { pause(); show(Number(slider.value)); };
  jump.onchange = () => { pause(); show(Number(jump.value)); };
  viewer.onFollow = (name) => {
    select.value = name || "";
    show(index);
  };
  select.onchange = () => viewer.follow(select.value || null);
  viewer.board.onLevel = () => show(index);

  // Read the rest a page at a time, telling each page's events as it comes.
  const readRest = async () => {
    tellUpTo(source.loaded());
    while (!closed && (source.total === null || source.loaded() < source.total)) {
      const got = await source.load(source.loaded());
      tellUpTo(source.loaded());
      if (!got) break;
    }
    if (!closed) {
      tellUpTo(source.loaded());
      viewer.chart.draw();
      viewer.events.mark(index);
      show(index);
    }
  };
  const reading = readRest().catch((error) => (page.querySelector("#status").textContent += ` (reading failed: ${error.message})`));
  const wanted = query.get("follow");
  if (wanted) viewer.follow(wanted);
  const first = Number(query.get("step") || 0);
  if (first >= source.loaded()) await reading;
  await show(first);
  current = {
    file,
    close: () => { closed = true; pause(); viewer.board.destroy(); },
    jump: (params) => {
      if (params.get("follow") !== null && params.get("follow") !== (viewer.board.follow || "")) viewer.follow(params.get("follow"));
      if (params.get("step") !== null) { pause(); show(Number(params.get("step"))); }
    },
  };
}

// -- leaderboards and players ---------------------------------------------------------------

function bestsHtml(bests, { showName = true } = {}) {
  return bests.map((group) => `<h2 class="map-title">${escapeHtml(group.world ? group.world + " · " : "")}map ${escapeHtml(group.map)}</h2>
    <div class="scroll"><table class="bests"><thead><tr><th>#</th>${showName ? "<th>name</th>" : ""}<th>moves</th><th>gold</th>
    ${group.results.some((r) => r.health !== null && r.health !== undefined) ? "<th>starting health</th>" : ""}<th>when</th></tr></thead><tbody>
    ${group.results.map((r) => `<tr><td>${r.rank}</td>${showName ? `<td><a href="#/player/${encodeURIComponent(r.name)}">${escapeHtml(r.name)}</a></td>` : ""}
      <td>${r.moves}</td><td>${r.gold}</td>${group.results.some((x) => x.health !== null && x.health !== undefined) ? `<td>${r.health ?? "least"}</td>` : ""}
      <td>${escapeHtml(String(r.ended_at || "").slice(0, 16).replace("T", " "))}</td></tr>`).join("")}</tbody></table></div>`).join("");
}

async function showLeaderboard(world) {
  const query = world ? `?world=${encodeURIComponent(world)}` : "";
  const response = await fetch(`/api/leaderboard${query}`, { cache: "no-store" });
  const body = await response.json();
  const worlds = body.worlds || ["classic", "crawler", "baddies", "knight", "battle"];
  page.innerHTML = `<h1>Leaderboard <span id="world"></span></h1><div class="controls">
    <label>world <select id="worlds">${worlds
      .map((w) => `<option${w === body.world ? " selected" : ""}>${escapeHtml(w)}</option>`)
      .join("")}</select></label></div>
    <h2>Ratings</h2><div id="standings"></div><h2>Best results per map</h2><div id="bests"></div>`;
  page.querySelector("#world").textContent = body.world || "";
  page.querySelector("#worlds").onchange = (event) => {
    location.hash = `#/leaderboard/${event.target.value}`;
  };
  const standings = page.querySelector("#standings"), bests = page.querySelector("#bests");
  if (!response.ok) {
    standings.textContent = body.error;
    return;
  }
  if (!body.standings.length) standings.textContent = "No rated games in this world yet (two or more named players make a rated game).";
  else {
    standings.innerHTML = `<div class="scroll"><table><thead><tr><th>#</th><th>name</th><th>rating</th><th>μ</th>
    <th>σ</th><th>games</th><th>wins</th></tr></thead><tbody>${body.standings
      .map(
        (s) => `<tr><td>${s.rank}</td><td><a href="#/player/${encodeURIComponent(s.name)}">${escapeHtml(s.name)}</a></td><td>${s.rating.toFixed(2)}</td>
        <td>${s.mu.toFixed(2)}</td><td>${s.sigma.toFixed(2)}</td><td>${s.games}</td><td>${s.wins}</td></tr>`,
      )
      .join("")}</tbody></table></div>`;
  }
  const groups = body.bests || [];
  bests.innerHTML = groups.length ? bestsHtml(groups) : "No solo wins in this world yet.";
}

async function showPlayer(name) {
  const body = await getJSON(`/api/players/${encodeURIComponent(name)}`);
  page.innerHTML = `<h1>Player <span id="who"></span></h1>
    <h2>Ratings</h2><div id="ratings"></div><h2>Best results</h2><div id="bests"></div>
    <h2>Games</h2><p class="muted" id="rating-note">Ratings come from places, not outcomes: each rated
    game (two or more named players) moves μ by the place won against the others there (openskill),
    and the leaderboard ranks by μ − 3σ. Winners are placed by when they escaped, so a win that escaped
    after stronger players can still lower μ; the rest are placed by the gold they held.</p><div id="history"></div>`;
  page.querySelector("#who").textContent = body.name;
  page.querySelector("#ratings").innerHTML = body.ratings.length
    ? `<div class="scroll"><table><thead><tr><th>world</th><th>rank</th><th>rating</th><th>games</th><th>wins</th></tr></thead><tbody>${body.ratings
        .map((r) => `<tr><td><a href="#/leaderboard/${encodeURIComponent(r.world)}">${escapeHtml(r.world)}</a></td><td>${r.rank}</td><td>${r.rating.toFixed(2)}</td><td>${r.games}</td><td>${r.wins}</td></tr>`)
        .join("")}</tbody></table></div>`
    : "No rated games yet.";
  page.querySelector("#bests").innerHTML = body.bests.length ? bestsHtml(body.bests) : "No solo wins yet.";
  page.querySelector("#history").innerHTML = body.games.length
    ? `<div class="scroll"><table id="games-played"><thead><tr><th>ended</th><th>world</th><th>map</th><th>game</th><th>outcome</th><th>place</th><th>gold</th><th>moves</th><th>μ change</th><th>replay</th></tr></thead><tbody>${body.games
        .map((g) => `<tr><td>${escapeHtml(String(g.ended_at).slice(0, 16).replace("T", " "))}</td><td>${escapeHtml(g.world)}</td><td>${escapeHtml(String(g.map ?? "default"))}</td>
          <td>${escapeHtml(g.game)}</td><td class="outcome-${escapeHtml(g.outcome)}">${escapeHtml(g.outcome)}</td><td class="place">${g.place}</td><td>${g.gold}</td><td>${g.moves}</td>
          <td>${g.mu_after !== null && g.mu_before !== null ? (g.mu_after - g.mu_before).toFixed(2) : g.rated ? "" : "not rated"}</td>
          <td>${g.replay ? `<a class="replay" href="#/replay/${encodeURIComponent(g.replay)}">replay</a>` : ""}</td></tr>`)
        .join("")}</tbody></table></div>`
    : "No games yet.";
}

// -- routing ------------------------------------------------------------------------------

async function route() {
  const [path, search] = location.hash.split("?");
  const [, kind, arg] = path.match(/^#\/([a-z]*)\/?(.*)$/) || [];
  const name = decodeURIComponent(arg || "");
  const query = new URLSearchParams(search || "");
  if (kind === "replay" && current && current.file === name && current.jump) {
    current.jump(query); // a link within the replay shown: move there, keep what is read
    return;
  }
  leavePage();
  try {
    if (kind === "watch" && name) showWatch(name);
    else if (kind === "play" && name) showPlay(name);
    else if (kind === "replay" && name) await showReplay(name, query);
    else if (kind === "replays") await showReplays(query);
    else if (kind === "leaderboard") await showLeaderboard(name);
    else if (kind === "player" && name) await showPlayer(name);
    else if (kind === "tournaments") current = name ? showTournament(page, name, query) : showTournaments(page);
    else await showGames();
  } catch (error) {
    page.innerHTML = `<p>Something went wrong: ${escapeHtml(String(error.message || error))}</p>`;
  }
}

window.addEventListener("hashchange", route);
route();
