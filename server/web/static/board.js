// The board: the world's views drawn on a canvas, each player in its own colour with its
// name, the followed player's view lit, steps animated, a legend. It draws what the server
// sends (VIEW, LEVEL and BOARD lines, or a replay's frames) and nothing it does not say.

import { STYLE, PLAYER_GLYPHS, cellNumber } from "./tiles.js";

const PALETTE = [
  "#ff6b6b", "#4dabf7", "#69db7c", "#da77f2", "#ffa94d", "#f783ac", "#3bc9db", "#a9e34b",
  "#fab005", "#9775fa", "#ff8787", "#63e6be",
];
const colours = new Map();

/** A player's colour: the palette in order of first sight, the same all session. */
export function colourOf(name) {
  if (!colours.has(name)) colours.set(name, PALETTE[colours.size % PALETTE.length]);
  return colours.get(name);
}

const SIGHT = 2; // the 5x5 LOOK window each way (docs/protocol.md)

function escapeHtml(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

export class Board {
  constructor(host) {
    this.host = host;
    host.classList.add("board-host");
    host.innerHTML = `<div class="levels" hidden></div>
      <div class="board-wrap"><canvas class="board" role="img" aria-label="the board"></canvas>
      <div class="tags"></div></div><ul class="legend"></ul>`;
    this.levelTabs = host.querySelector(".levels");
    this.wrap = host.querySelector(".board-wrap");
    this.canvas = host.querySelector("canvas");
    this.tags = host.querySelector(".tags");
    this.legend = host.querySelector(".legend");
    this.tiles = null;
    this.cell = 1;
    this.levels = [];
    this.seats = [];
    this.follow = null;
    this.me = null;
    this.manualLevel = null; // a level chosen by its tab; none: where the first player is
    this.duration = 180;
    this.shown = new Map(); // name -> {from, to, level}
    this.animStart = 0;
    this.px = 16;
    this.frame = null;
    this.legendKey = "";
    this.observer = new ResizeObserver(() => this.layout());
    this.observer.observe(this.wrap);
    window.dodViewer = this; // what tests (and the curious) ask where a player is drawn
  }

  destroy() {
    this.observer.disconnect();
    if (this.frame) cancelAnimationFrame(this.frame);
    if (window.dodViewer === this) window.dodViewer = null;
  }

  setTiles(tiles) {
    this.tiles = tiles;
    this.legendKey = "";
    this.schedule();
  }

  /** levels: rows of text per level (level 1 first); cell: characters per square. */
  setLevels(levels, cell = this.cell) {
    const size = (rows) => (rows && rows.length ? `${rows.length}x${rows[0].length}` : "");
    const resized = size(this.levels[this.levelShown() - 1]) !== size(levels[this.levelShown() - 1]);
    const recelled = (cell || 1) !== this.cell;
    this.levels = levels;
    this.cell = cell || 1;
    if (this.onLevels) this.onLevels(levels.length);
    this.showTabs();
    if (resized || recelled) this.layout();
    else this.schedule();
  }

  /** seats: [{name, level, row, col, gold, moves, ...}] as BOARD lines or frames give them. */
  setSeats(seats, { animate = true } = {}) {
    const now = performance.now();
    const next = new Map();
    for (const seat of seats) {
      const to = { r: seat.row, c: seat.col };
      const old = this.shown.get(seat.name);
      const from = old && animate && old.level === seat.level ? this.current(old, now) : to;
      next.set(seat.name, { from, to, level: seat.level });
      colourOf(seat.name);
    }
    this.shown = next;
    this.animStart = now;
    this.seats = seats;
    this.showTabs();
    this.schedule();
  }

  setFollow(name) {
    this.follow = name || null;
    this.showTabs();
    this.schedule();
  }

  /** Whether everything given has been drawn and no step is still moving. */
  settled() {
    return this.frame === null && performance.now() - this.animStart >= this.duration;
  }

  seatOf(name) {
    return this.seats.find((seat) => seat.name === name) || null;
  }

  levelShown() {
    const followed = this.follow && this.seatOf(this.follow);
    const level = followed ? followed.level || 1 : this.manualLevel ?? (this.seats[0] ? this.seats[0].level || 1 : 1);
    return Math.min(Math.max(1, level), Math.max(1, this.levels.length));
  }

  showTabs() {
    const count = this.levels.length;
    this.levelTabs.hidden = count < 2;
    if (count < 2) {
      this.levelTabs.innerHTML = "";
      this.levelTabs.dataset.key = "";
      return;
    }
    const shown = this.levelShown();
    const people = (level) => this.seats.filter((s) => (s.level || 1) === level).length;
    const key = `${count}:${shown}:${this.seats.map((s) => s.level).join()}`;
    if (this.levelTabs.dataset.key === key) return;
    this.levelTabs.dataset.key = key;
    this.levelTabs.innerHTML = Array.from({ length: count }, (_, i) => i + 1)
      .map((level) => `<button data-level="${level}" class="${level === shown ? "on" : ""}">level ${level}` +
        `${people(level) ? ` · ${people(level)}☺` : ""}</button>`)
      .join("");
    for (const button of this.levelTabs.querySelectorAll("button")) {
      button.onclick = () => {
        this.manualLevel = Number(button.dataset.level);
        if (this.follow && (this.seatOf(this.follow)?.level || 1) !== this.manualLevel) this.follow = null;
        this.onLevel && this.onLevel(this.manualLevel);
        this.showTabs();
        this.layout();
      };
    }
  }

  rows() {
    return this.levels[this.levelShown() - 1] || [];
  }

  columns() {
    const rows = this.rows();
    return rows.length ? Math.ceil(rows[0].length / this.cell) : 0;
  }

  layout() {
    const rows = this.rows();
    const cols = this.columns();
    if (!rows.length || !cols) return;
    const width = this.wrap.clientWidth || 320;
    const top = this.wrap.getBoundingClientRect().top + window.scrollY;
    const room = Math.max(220, window.innerHeight - Math.min(top, window.innerHeight * 0.35) - 40);
    const px = Math.max(3, Math.min(56, Math.floor(Math.min(width / cols, room / rows.length))));
    this.px = px;
    const dpr = window.devicePixelRatio || 1;
    this.canvas.style.width = `${cols * px}px`;
    this.canvas.style.height = `${rows.length * px}px`;
    this.canvas.width = Math.round(cols * px * dpr);
    this.canvas.height = Math.round(rows.length * px * dpr);
    this.schedule();
  }

  schedule() {
    if (!this.frame) this.frame = requestAnimationFrame((t) => this.draw(t));
  }

  current(entry, now) {
    const k = Math.min(1, (now - this.animStart) / Math.max(1, this.duration));
    const ease = k * (2 - k);
    return { r: entry.from.r + (entry.to.r - entry.from.r) * ease, c: entry.from.c + (entry.to.c - entry.from.c) * ease };
  }

  draw(now) {
    this.frame = null;
    const rows = this.rows();
    const cols = this.columns();
    if (!rows.length) return;
    if (this.canvas.width < cols || Math.abs(this.canvas.height / (window.devicePixelRatio || 1) - rows.length * this.px) > 1) {
      this.layout();
      return;
    }
    const ctx = this.canvas.getContext("2d");
    const dpr = window.devicePixelRatio || 1;
    const px = this.px;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, cols * px, rows.length * px);
    for (let r = 0; r < rows.length; r++) {
      for (let c = 0; c < cols; c++) {
        const text = this.cell === 1 ? rows[r][c] : rows[r].slice(c * this.cell, (c + 1) * this.cell);
        this.drawSquare(ctx, text, c * px, r * px, px, r === rows.length - 1 && c === cols - 1);
      }
    }
    const level = this.levelShown();
    const followed = this.follow && this.shown.get(this.follow);
    if (followed && followed.level === level) this.drawSight(ctx, this.current(followed, now), cols, rows.length, colourOf(this.follow));
    let moving = false;
    const tags = [];
    for (const seat of this.seats) {
      const entry = this.shown.get(seat.name);
      if (!entry || entry.level !== (seat.level || 1) || (seat.level || 1) !== level) continue;
      const at = this.current(entry, now);
      if (at.r !== entry.to.r || at.c !== entry.to.c) moving = true;
      this.drawPlayer(ctx, seat.name, at, px);
      tags.push({ name: seat.name, at });
    }
    this.placeTags(tags, px);
    this.updateLegend();
    if (moving) this.schedule();
  }

  drawSquare(ctx, text, x, y, px, last) {
    if (this.cell > 1) return this.drawNumber(ctx, text, x, y, px, last);
    const tile = this.tiles && this.tiles[text];
    const kind = tile ? tile.kind : this.tiles && PLAYER_GLYPHS.has(text) ? "floor" : "unknown";
    const style = STYLE[kind] || STYLE.unknown;
    ctx.fillStyle = style.fill;
    ctx.fillRect(x, y, px, px);
    const m = style.mark;
    const cx = x + px / 2, cy = y + px / 2;
    if (kind === "wall" && px >= 6) {
      ctx.fillStyle = style.edge;
      ctx.fillRect(x, y, px, Math.max(1, px * 0.18));
    } else if (kind === "gold") {
      ctx.fillStyle = m;
      ctx.beginPath();
      ctx.arc(cx, cy, px * 0.26, 0, Math.PI * 2);
      ctx.fill();
      if (px >= 10) { ctx.strokeStyle = "#9e6a03"; ctx.lineWidth = 1; ctx.stroke(); }
    } else if (kind === "exit") {
      ctx.fillStyle = m;
      ctx.fillRect(x + px * 0.18, y + px * 0.12, px * 0.64, px * 0.76);
      ctx.fillStyle = "#0d1117";
      ctx.fillRect(x + px * 0.3, y + px * 0.3, px * 0.4, px * 0.58);
    } else if (kind === "door") {
      ctx.fillStyle = m;
      ctx.fillRect(x + px * 0.22, y + px * 0.1, px * 0.56, px * 0.8);
      ctx.fillStyle = "#0d1117";
      ctx.fillRect(x + px * 0.6, y + px * 0.5, px * 0.08, px * 0.08);
    } else if (kind === "foe") {
      ctx.fillStyle = m;
      ctx.beginPath();
      ctx.moveTo(cx, y + px * 0.14);
      ctx.lineTo(x + px * 0.86, y + px * 0.84);
      ctx.lineTo(x + px * 0.14, y + px * 0.84);
      ctx.closePath();
      ctx.fill();
      if (text !== text.toLowerCase() && px >= 8) { // a capital: the stronger kind
        ctx.strokeStyle = "#ffd8d3"; ctx.lineWidth = 1.5; ctx.stroke();
      }
    } else if (kind === "item") {
      ctx.fillStyle = m;
      ctx.beginPath();
      ctx.moveTo(cx, y + px * 0.2); ctx.lineTo(x + px * 0.8, cy);
      ctx.lineTo(cx, y + px * 0.8); ctx.lineTo(x + px * 0.2, cy);
      ctx.closePath();
      ctx.fill();
    } else if (kind === "abyss") {
      ctx.fillStyle = m;
      ctx.globalAlpha = 0.35;
      ctx.beginPath(); ctx.arc(cx, cy, px * 0.3, 0, Math.PI * 2); ctx.fill();
      ctx.globalAlpha = 1;
    } else if (kind === "hazard") {
      ctx.strokeStyle = m; ctx.lineWidth = Math.max(1, px * 0.1);
      ctx.beginPath();
      ctx.moveTo(x + px * 0.25, y + px * 0.25); ctx.lineTo(x + px * 0.75, y + px * 0.75);
      ctx.moveTo(x + px * 0.75, y + px * 0.25); ctx.lineTo(x + px * 0.25, y + px * 0.75);
      ctx.stroke();
    }
    if ((kind === "unknown" || (tile && tile.kind === "unknown")) && text.trim() && px >= 7) {
      if (this.tiles && PLAYER_GLYPHS.has(text)) return;
      ctx.fillStyle = STYLE.unknown.text;
      ctx.font = `${Math.round(px * 0.72)}px ui-monospace, monospace`;
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(text, cx, cy + px * 0.04);
    }
    if (px >= 5) { ctx.strokeStyle = "rgba(0,0,0,0.25)"; ctx.lineWidth = 1; ctx.strokeRect(x + 0.5, y + 0.5, px - 1, px - 1); }
  }

  drawNumber(ctx, text, x, y, px, last) {
    const value = cellNumber(text);
    const strength = value === null ? 0 : Math.min(1, Math.abs(value) / 30);
    ctx.fillStyle = value === null ? STYLE.unknown.fill
      : value < 0 ? `rgba(248,81,73,${0.18 + 0.6 * strength})`
      : value > 0 ? `rgba(63,185,80,${0.18 + 0.6 * strength})` : STYLE.floor.fill;
    ctx.fillRect(x, y, px, px);
    ctx.strokeStyle = last ? "#2ea043" : "rgba(0,0,0,0.35)";
    ctx.lineWidth = last ? 3 : 1;
    ctx.strokeRect(x + 1, y + 1, px - 2, px - 2);
    if (value !== null && px >= 14) {
      ctx.fillStyle = "#e6edf3";
      ctx.font = `${Math.round(px * (String(value).length > 3 ? 0.3 : 0.38))}px ui-monospace, monospace`;
      ctx.textAlign = "center";
      ctx.textBaseline = "middle";
      ctx.fillText(String(value), x + px / 2, y + px / 2);
    }
  }

  drawSight(ctx, at, cols, rows, colour) {
    const px = this.px;
    const x0 = Math.max(0, at.c - SIGHT) * px, y0 = Math.max(0, at.r - SIGHT) * px;
    const x1 = Math.min(cols, at.c + SIGHT + 1) * px, y1 = Math.min(rows, at.r + SIGHT + 1) * px;
    ctx.fillStyle = "rgba(5,8,12,0.38)";
    ctx.beginPath();
    ctx.rect(0, 0, cols * px, rows * px);
    ctx.rect(x0, y0, x1 - x0, y1 - y0);
    ctx.fill("evenodd");
    ctx.strokeStyle = colour;
    ctx.lineWidth = 2;
    ctx.setLineDash([6, 4]);
    ctx.strokeRect(x0 + 1, y0 + 1, x1 - x0 - 2, y1 - y0 - 2);
    ctx.setLineDash([]);
  }

  drawPlayer(ctx, name, at, px) {
    const cx = at.c * px + px / 2, cy = at.r * px + px / 2;
    const radius = Math.max(2, px * 0.4);
    ctx.beginPath();
    ctx.arc(cx, cy, radius, 0, Math.PI * 2);
    ctx.fillStyle = colourOf(name);
    ctx.fill();
    ctx.lineWidth = Math.max(1, px * 0.08);
    ctx.strokeStyle = name === this.me ? "#ffffff" : "#0d1117";
    ctx.stroke();
    if (name === this.me) {
      ctx.beginPath();
      ctx.arc(cx, cy, radius + Math.max(2, px * 0.12), 0, Math.PI * 2);
      ctx.strokeStyle = "#ffffff";
      ctx.lineWidth = 2;
      ctx.stroke();
    }
  }

  placeTags(tags, px) {
    const keep = new Set();
    for (const { name, at } of tags) {
      keep.add(name);
      let tag = this.tags.querySelector(`[data-player="${CSS.escape(name)}"]`);
      if (!tag) {
        tag = document.createElement("div");
        tag.className = "tag";
        tag.dataset.player = name;
        tag.textContent = name;
        this.tags.appendChild(tag);
      }
      tag.style.borderColor = colourOf(name);
      tag.classList.toggle("me", name === this.me);
      tag.classList.toggle("small", px < 24); // a small board: a smaller label hides less
      tag.style.left = `${this.canvas.offsetLeft + at.c * px + px / 2}px`;
      tag.style.top = `${this.canvas.offsetTop + at.r * px - 2}px`;
    }
    for (const tag of [...this.tags.children]) if (!keep.has(tag.dataset.player)) tag.remove();
  }

  /** Where ``name`` is drawn: the centre of its square in page coordinates, its colour. */
  positionOf(name) {
    const seat = this.seatOf(name);
    if (!seat || (seat.level || 1) !== this.levelShown()) return null;
    const box = this.canvas.getBoundingClientRect();
    return {
      x: box.left + seat.col * this.px + this.px / 2,
      y: box.top + seat.row * this.px + this.px / 2,
      px: this.px,
      colour: colourOf(name),
      level: seat.level || 1,
    };
  }

  updateLegend() {
    const tiles = this.tiles || {};
    const names = this.seats.map((s) => s.name);
    const key = JSON.stringify([Object.keys(tiles), names, this.me, this.cell]);
    if (key === this.legendKey) return;
    this.legendKey = key;
    const items = [];
    const byWords = new Map(); // words -> [glyphs] ("L S A H are items PICKUP takes")
    for (const [glyph, tile] of Object.entries(tiles)) {
      if (glyph === " ") continue;
      if (!byWords.has(tile.words)) byWords.set(tile.words, { tile, glyphs: [] });
      byWords.get(tile.words).glyphs.push(glyph);
    }
    for (const [words, { tile, glyphs }] of byWords) {
      const style = STYLE[tile.kind] || STYLE.unknown;
      items.push(`<li><span class="swatch" style="background:${style.mark || style.fill};
        ${style.mark ? `box-shadow: inset 0 0 0 3px ${style.fill}` : ""}"></span>
        <code>${escapeHtml(glyphs.join(" "))}</code> ${escapeHtml(words)}</li>`);
    }
    if (this.cell > 1) {
      items.push(`<li><span class="swatch" style="background:rgba(63,185,80,.7)"></span> gain</li>`);
      items.push(`<li><span class="swatch" style="background:rgba(248,81,73,.7)"></span> loss</li>`);
    }
    if (!this.tiles && this.cell === 1) items.push(`<li class="muted">this world names no tiles: its characters are drawn as they are</li>`);
    for (const name of names) {
      items.push(`<li><span class="swatch round" style="background:${colourOf(name)}"></span>
        ${escapeHtml(name)}${name === this.me ? " (you)" : ""}</li>`);
    }
    this.legend.innerHTML = items.join("");
  }
}
