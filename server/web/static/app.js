// The Dungeon of Doom web page: games, a live view, a replay viewer, and play by keyboard.
// Plain modern JavaScript, no build step. Watching and playing speak the game's own line
// protocol over the /ws WebSocket, exactly as a TCP client does (WATCH, HELLO, MOVE...).

const page = document.getElementById("page");
const MAX_LOG = 400;
const MAX_COLOURED_CELLS = 60000; // bigger maps are drawn as plain text

// -- drawing ------------------------------------------------------------------------------

const COMMON = {
  "#": "wall", ".": "floor", " ": "floor", G: "gold", E: "exit", P: "player", B: "bot",
  "@": "player", X: "wall", L: "item", S: "item", A: "item", H: "item",
};
const PALETTES = {
  classic: COMMON,
  battle: COMMON,
  // worlds/crawler/levelfile.py: - open, $ treasure, @ amulet, M monster, + pillar, ? door, ! exit, o player
  crawler: { "-": "floor", $: "gold", "@": "item", M: "foe", "+": "wall", "?": "door", "!": "exit", o: "player", P: "player", B: "bot" },
  // worlds/baddies/board.py: H hero, * ladder, + wall, # abyss, m/M monsters, ~ bat, . or space empty
  baddies: { "+": "wall", "#": "abyss", "*": "exit", m: "foe", M: "foe", "~": "foe", H: "player", P: "player", B: "bot", ".": "floor", " ": "floor" },
  // worlds/knight/render.py: numbers, [you], (another knight), * crossed
  knight: { "[": "player", "]": "player", "(": "bot", ")": "bot", "*": "exit", "-": "hazard" },
};

function cellClass(world, ch) {
  const palette = PALETTES[world] || COMMON;
  if (palette[ch]) return palette[ch];
  if (ch >= "0" && ch <= "9") return "num";
  return "floor";
}

function escapeHtml(text) {
  return text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

/** Draw rows of map text into a <pre>, coloured per world; the text stays the map's text. */
function drawMap(pre, rows, world) {
  if (!rows || !rows.length) return;
  if (rows.length * rows[0].length > MAX_COLOURED_CELLS) {
    pre.textContent = rows.join("\n");
    return;
  }
  const html = [];
  for (const row of rows) {
    let run = "", runClass = null;
    for (const ch of row) {
      const cls = cellClass(world, ch);
      if (cls !== runClass && run) {
        html.push(`<span class="c-${runClass}">${escapeHtml(run)}</span>`);
        run = "";
      }
      runClass = cls;
      run += ch;
    }
    if (run) html.push(`<span class="c-${runClass}">${escapeHtml(run)}</span>`);
    html.push("\n");
  }
  pre.innerHTML = html.join("");
}

function appendLog(element, line) {
  const atBottom = element.scrollTop + element.clientHeight >= element.scrollHeight - 4;
  element.textContent += line + "\n";
  const lines = element.textContent.split("\n");
  if (lines.length > MAX_LOG) element.textContent = lines.slice(-MAX_LOG).join("\n");
  if (atBottom) element.scrollTop = element.scrollHeight;
}

// -- the line protocol over a WebSocket ---------------------------------------------------

/** Lines in, blocks out: VIEW/MAP/LOOKREPLY/HELP/GAMES blocks are gathered whole. */
class Wire {
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
      this.line(this.buffer.slice(0, end).replace(/\r$/, ""));
      this.buffer = this.buffer.slice(end + 1);
    }
  }

  line(line) {
    const block = this.block;
    if (block) {
      block.rows.push(line);
      if (block.size === null) block.size = line.length; // a LOOK window is square
      if (block.rows.length >= block.size) {
        this.block = null;
        this.handlers.block && this.handlers.block(block.kind, block.rows);
      }
      return;
    }
    const words = line.split(" ");
    const counted = { VIEW: 1, MAP: 1, HELP: 1, GAMES: 1 }[words[0]];
    if (counted && /^\d+$/.test(words[1] || "")) {
      const size = Number(words[1]);
      if (size > 0) {
        this.block = { kind: words[0], size, rows: [] };
        if (words[0] === "HELP" || words[0] === "GAMES") this.handlers.line(line);
        return;
      }
    }
    if (line === "LOOKREPLY") {
      this.block = { kind: "LOOKREPLY", size: null, rows: [] };
      return;
    }
    this.handlers.line(line);
  }
}

// -- pages --------------------------------------------------------------------------------

let current = null; // what the page holds open (a WebSocket, a timer), closed on leaving it

function leavePage() {
  if (current) current();
  current = null;
}

async function getJSON(url) {
  const response = await fetch(url, { cache: "no-store" });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

async function showGames() {
  page.innerHTML = `<h1>Games</h1><div class="controls"><button id="refresh">Refresh</button></div>
    <table id="games"><thead><tr><th>game</th><th>world</th><th>map</th><th>players</th>
    <th>watchers</th><th>round</th><th>live</th><th></th></tr></thead><tbody></tbody></table>
    <h1 style="margin-top:1.5rem">Recent replays</h1><div id="replays">loading…</div>`;
  const fill = async () => {
    const { games } = await getJSON("/api/games");
    page.querySelector("#games tbody").innerHTML = games
      .map((g) => {
        const name = encodeURIComponent(g.name);
        return `<tr data-game="${escapeHtml(g.name)}"><td>${escapeHtml(g.name)}</td><td>${escapeHtml(g.world)}</td>
          <td>${escapeHtml(g.map)}</td><td>${g.players}${g.limit === null ? "" : " / " + g.limit}</td>
          <td>${g.watchers}</td><td>${g.round}</td><td>${g.players > 0 ? "live" : "waiting"}</td>
          <td><a href="#/watch/${name}">watch</a> · <a href="#/play/${name}">play</a></td></tr>`;
      })
      .join("");
  };
  page.querySelector("#refresh").onclick = fill;
  await fill();
  await showReplayList(page.querySelector("#replays"), 10);
}

async function showReplayList(element, limit) {
  const { replays } = await getJSON("/api/replays");
  if (!replays.length) {
    element.textContent = "No replays yet (the server writes one per game played).";
    return;
  }
  element.innerHTML = `<table><thead><tr><th>replay</th><th>game</th><th>world</th><th>map</th>
    <th>started</th></tr></thead><tbody>${replays
      .slice(0, limit)
      .map(
        (r) => `<tr><td><a href="#/replay/${encodeURIComponent(r.file)}">${escapeHtml(r.file)}</a></td>
        <td>${escapeHtml(String(r.game))}</td><td>${escapeHtml(String(r.world))}</td>
        <td>${escapeHtml(String(r.map))}</td><td>${escapeHtml(String(r.started))}</td></tr>`,
      )
      .join("")}</tbody></table>`;
}

async function showReplays() {
  page.innerHTML = `<h1>Replays</h1><div id="replays">loading…</div>`;
  await showReplayList(page.querySelector("#replays"), 500);
}

function gameStatus(line) {
  // GAME <name> world=... map=... seed=... players=... limit=... watchers=... turn=...
  const fields = Object.fromEntries(
    line.split(" ").slice(2).map((word) => word.split("=")).filter((pair) => pair.length === 2),
  );
  return fields;
}

function showWatch(name) {
  page.innerHTML = `<h1>Watching <span id="name"></span></h1>
    <div class="status" id="status">connecting…</div>
    <div class="layout"><pre class="map" id="map"></pre>
      <div><div class="panel"><h2>Players</h2><div id="players">none seen yet</div></div>
      <div class="panel"><h2>Events</h2><pre class="log" id="log"></pre></div>
      <div class="panel"><h2>Chat</h2><pre class="log" id="chat"></pre></div></div></div>`;
  page.querySelector("#name").textContent = name;
  const map = page.querySelector("#map"), log = page.querySelector("#log");
  const chat = page.querySelector("#chat"), status = page.querySelector("#status");
  const players = new Set();
  let world = "classic";
  const showPlayers = () => {
    page.querySelector("#players").textContent = players.size ? [...players].join(", ") : "none seen yet";
  };
  const wire = new Wire({
    open: () => {
      wire.send("EXTEND events chat");
      wire.send(`WATCH ${name}`);
    },
    block: (kind, rows) => {
      if (kind === "VIEW" || kind === "MAP") drawMap(map, rows, world);
    },
    line: (line) => {
      const word = line.split(" ")[0];
      if (word === "GAME") {
        const info = gameStatus(line);
        world = info.world || world;
        status.innerHTML = `<b>${escapeHtml(info.world || "?")}</b> world · map <b>${escapeHtml(info.map || "?")}</b>
          · ${escapeHtml(info.players || "0")} player(s) · ${escapeHtml(info.watchers || "0")} watching`;
        return;
      }
      if (word === "EXTENDED") return;
      if (word === "MESSAGE") {
        appendLog(chat, line.slice(8));
        return;
      }
      const who = /^(?:JOINED|LEFT|SAW) ([^:]+)/.exec(line);
      if (who) {
        if (word === "LEFT") players.delete(who[1]);
        else players.add(who[1]);
        showPlayers();
      }
      appendLog(log, line);
    },
    close: () => appendLog(log, "(the connection closed)"),
  });
  current = () => wire.close();
}

const MOVES = {
  ArrowUp: "N", ArrowDown: "S", ArrowLeft: "W", ArrowRight: "E",
  Home: "NW", PageUp: "NE", End: "SW", PageDown: "SE",
};

function showPlay(name) {
  page.innerHTML = `<h1>Playing <span id="name"></span></h1>
    <div class="controls" id="join"><label>Your name <input id="player" maxlength="20"></label>
      <button id="start">Enter the dungeon</button></div>
    <div class="status" id="status"></div><div class="status" id="battle"></div>
    <div class="outcome" id="outcome"></div>
    <div class="layout"><pre class="map" id="map" tabindex="0"></pre>
      <div><div class="panel"><h2>Keys</h2><div class="keys">arrows: move · Home/PgUp/End/PgDn:
      diagonal moves (baddies) · p: pick up · l: look · a then an arrow: attack (battle) ·
      t: end turn (battle) · .: stay (rounds)</div></div>
      <div class="panel"><h2>Replies</h2><pre class="log" id="log"></pre></div></div></div>`;
  page.querySelector("#name").textContent = name;
  const input = page.querySelector("#player");
  input.value = "web" + Math.floor(Math.random() * 9000 + 1000);
  const map = page.querySelector("#map"), log = page.querySelector("#log");
  const status = page.querySelector("#status"), outcome = page.querySelector("#outcome");
  let wire = null, world = "classic", attacking = false, over = false;
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

  const send = (line) => {
    appendLog(log, "> " + line);
    wire.send(line);
  };
  const act = (command) => {
    if (over) return;
    send(command);
    send("LOOK");
  };
  const onKey = (event) => {
    if (!wire || over || event.target === input) return;
    let command = null;
    if (MOVES[event.key]) command = `${attacking ? "ATTACK" : "MOVE"} ${MOVES[event.key]}`;
    else if (event.key === "p") command = "PICKUP";
    else if (event.key === "l") command = "LOOK";
    else if (event.key === "t") command = "ENDTURN";
    else if (event.key === ".") command = "STAY";
    else if (event.key === "a") {
      attacking = true;
      status.dataset.attack = "1";
      return;
    }
    if (!command) return;
    event.preventDefault();
    attacking = false;
    if (command === "LOOK") send(command);
    else act(command);
  };

  page.querySelector("#start").onclick = () => {
    page.querySelector("#join").style.display = "none";
    const player = input.value.trim() || "web";
    wire = new Wire({
      open: () => {
        wire.send("EXTEND events chat");
        wire.send(`JOIN ${name}`); // answered with the GAME line, which names the world
        send(`HELLO ${player}`);
        send("LOOK");
        map.focus();
      },
      block: (kind, rows) => {
        if (kind === "LOOKREPLY") drawMap(map, rows, world);
        else appendLog(log, rows.join("\n"));
      },
      line: (line) => {
        const word = line.split(" ")[0];
        if (word === "GAME") {
          const joined = world !== (gameStatus(line).world || world) || status.textContent === "";
          world = gameStatus(line).world || world;
          status.textContent = `${world} world · you are ${player}`;
          if (joined && world === "battle") {
            wire.send("HPGET");
            wire.send("APGET");
          }
          return;
        }
        if (word === "EXTENDED") return;
        noteBattle(line);
        appendLog(log, line);
        if (word === "WIN" || word === "LOSE" || word === "BYE") {
          over = true;
          outcome.textContent = line;
        } else if (word === "SAW" || word === "JOINED" || word === "LEFT") {
          wire.send("LOOK"); // someone moved near us: look again (the reply redraws)
        }
      },
      close: () => {
        over = true;
        appendLog(log, "(the connection closed)");
      },
    });
  };
  document.addEventListener("keydown", onKey);
  current = () => {
    document.removeEventListener("keydown", onKey);
    if (wire) wire.close();
  };
}

async function showReplay(file) {
  page.innerHTML = `<h1>Replay <span id="name"></span></h1><div class="status" id="status">loading…</div>
    <div class="controls"><button id="play">Play</button><button id="back">◀ Step</button>
      <button id="step">Step ▶</button><label>speed <select id="speed">
      <option value="1">1 step/s</option><option value="4" selected>4 steps/s</option>
      <option value="10">10 steps/s</option><option value="30">30 steps/s</option></select></label>
      <input type="range" id="slider" min="0" value="0"> <span id="where"></span></div>
    <div class="layout"><pre class="map" id="map"></pre>
      <div class="panel"><h2>What happened</h2><pre class="log" id="log"></pre></div></div>`;
  page.querySelector("#name").textContent = file;
  // The server sends a replay a page of frames at a time (docs/operating.md); the
  // first page shows at once and the rest are fetched one after another behind it.
  const address = `/api/replays/${encodeURIComponent(file)}`;
  let replay;
  try {
    replay = await getJSON(address);
  } catch (error) {
    page.querySelector("#status").textContent = `cannot show this replay: ${error.message}`;
    return;
  }
  const frames = replay.frames;
  const map = page.querySelector("#map"), log = page.querySelector("#log");
  const slider = page.querySelector("#slider"), where = page.querySelector("#where");
  const playButton = page.querySelector("#play");
  const status = page.querySelector("#status");
  const showStatus = (note) => {
    status.innerHTML = `<b>${escapeHtml(String(replay.world))}</b> world · map
    <b>${escapeHtml(String(replay.map))}</b> · seed ${escapeHtml(String(replay.seed))} · players:
    ${escapeHtml(Object.values(replay.players).join(", ") || "none named")}${note}`;
  };
  showStatus(replay.next === null ? "" : " · loading…");
  slider.max = String(frames.length - 1);
  const shown = page.firstElementChild;
  (async () => {
    let next = replay.next;
    while (next !== null && page.firstElementChild === shown) {
      let more;
      try {
        more = await getJSON(`${address}?from=${next}`);
      } catch (error) {
        showStatus(` · the rest could not be loaded: ${error.message}`);
        return;
      }
      if (page.firstElementChild !== shown) return; // the page was left meanwhile
      frames.push(...more.frames);
      replay.players = more.players;
      slider.max = String(frames.length - 1);
      next = more.next;
      showStatus(next === null ? "" : " · loading…");
    }
  })();
  let index = 0, timer = null;
  const show = (at) => {
    index = Math.max(0, Math.min(frames.length - 1, at));
    let view = null;
    for (let i = index; i >= 0 && !view; i--) view = frames[i].view;
    drawMap(map, view, replay.world);
    log.textContent = frames.slice(Math.max(0, index - 200), index + 1).map((f) => f.text).join("\n");
    log.scrollTop = log.scrollHeight;
    slider.value = String(index);
    where.textContent = `step ${index} of ${frames.length - 1} · round ${frames[index].round}`;
  };
  const pause = () => {
    clearInterval(timer);
    timer = null;
    playButton.textContent = "Play";
  };
  const play = () => {
    if (index >= frames.length - 1) show(0);
    const speed = Number(page.querySelector("#speed").value);
    timer = setInterval(() => (index >= frames.length - 1 ? pause() : show(index + 1)), 1000 / speed);
    playButton.textContent = "Pause";
  };
  playButton.onclick = () => (timer ? pause() : play());
  page.querySelector("#step").onclick = () => { pause(); show(index + 1); };
  page.querySelector("#back").onclick = () => { pause(); show(index - 1); };
  page.querySelector("#speed").onchange = () => { if (timer) { pause(); play(); } };
  slider.oninput = () => { pause(); show(Number(slider.value)); };
  show(0);
  current = pause;
}

async function showLeaderboard(world) {
  const query = world ? `?world=${encodeURIComponent(world)}` : "";
  const response = await fetch(`/api/leaderboard${query}`, { cache: "no-store" });
  const body = await response.json();
  page.innerHTML = `<h1>Leaderboard <span id="world"></span></h1><div class="controls">
    <label>world <select id="worlds">${["classic", "crawler", "baddies", "knight", "battle"]
      .map((w) => `<option${w === body.world ? " selected" : ""}>${w}</option>`)
      .join("")}</select></label></div><div id="standings"></div>`;
  page.querySelector("#world").textContent = body.world || "";
  page.querySelector("#worlds").onchange = (event) => {
    location.hash = `#/leaderboard/${event.target.value}`;
  };
  const standings = page.querySelector("#standings");
  if (!response.ok) {
    standings.textContent = body.error;
    return;
  }
  if (!body.standings.length) {
    standings.textContent = "No rated games in this world yet.";
    return;
  }
  standings.innerHTML = `<table><thead><tr><th>#</th><th>name</th><th>rating</th><th>μ</th>
    <th>σ</th><th>games</th><th>wins</th></tr></thead><tbody>${body.standings
      .map(
        (s) => `<tr><td>${s.rank}</td><td>${escapeHtml(s.name)}</td><td>${s.rating.toFixed(2)}</td>
        <td>${s.mu.toFixed(2)}</td><td>${s.sigma.toFixed(2)}</td><td>${s.games}</td><td>${s.wins}</td></tr>`,
      )
      .join("")}</tbody></table>`;
}

// -- routing ------------------------------------------------------------------------------

async function route() {
  leavePage();
  const [, kind, arg] = location.hash.match(/^#\/([a-z]*)\/?(.*)$/) || [];
  const name = decodeURIComponent(arg || "");
  try {
    if (kind === "watch" && name) showWatch(name);
    else if (kind === "play" && name) showPlay(name);
    else if (kind === "replay" && name) await showReplay(name);
    else if (kind === "replays") await showReplays();
    else if (kind === "leaderboard") await showLeaderboard(name);
    else await showGames();
  } catch (error) {
    page.innerHTML = `<p>Something went wrong: ${escapeHtml(String(error.message || error))}</p>`;
  }
}

window.addEventListener("hashchange", route);
route();
