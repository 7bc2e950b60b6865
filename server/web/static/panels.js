// What goes beside the board: a card per player, a chart of each player's gold over the
// game, and the events told in words, each linked to its step.

import { colourOf } from "./board.js";

export function escapeHtml(text) {
  return String(text).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

const DIRECTIONS = { N: "north", S: "south", E: "east", W: "west", NE: "north-east", NW: "north-west", SE: "south-east", SW: "south-west" };
const WHY = { escaped: "escaped", died: "died", quit: "quit", disconnected: "lost the connection", moved: "moved to another game", removed: "was removed for missing turns" };
const SHOWN_FIELDS = ["level", "hp", "ap", "health"]; // besides gold and moves; others are listed as they come
const FIELD_NAMES = { hp: "HP", ap: "AP" };

/** A pushed line about the game as a sentence ({player, text}), or null for one not worth it. */
export function tellLine(line, goal) {
  let m;
  if ((m = /^SAW (.+?): (\S+)(?: (\S+))? (SUCCESS(?:, GOLD COINS: (-?\d+))?|FAIL)$/.exec(line))) {
    const [, who, verb, arg, result, coins] = m;
    const where = DIRECTIONS[arg] || (arg || "").toLowerCase();
    if (verb === "MOVE") return result === "FAIL" ? { player: who, text: `${who} could not move ${where}` } : null;
    if (verb === "PICKUP") {
      if (coins !== undefined) return { player: who, text: `${who} picked up gold (${coins}${goal > 0 ? ` of ${goal}` : ""})` };
      return { player: who, text: result === "FAIL" ? `${who} found nothing to pick up` : `${who} picked something up` };
    }
    if (verb === "ATTACK") return { player: who, text: `${who} attacked ${where}: ${result === "FAIL" ? "a miss" : "a hit"}` };
    if (verb === "STAY") return null;
    if (verb === "ENDTURN") return { player: who, text: `${who} ended the turn` };
    return { player: who, text: `${who}: ${verb.toLowerCase()} ${where} (${result.toLowerCase()})` };
  }
  if ((m = /^JOINED (.+)$/.exec(line))) return { player: m[1], text: `${m[1]} entered the dungeon` };
  if ((m = /^LEFT (.+?): (.+)$/.exec(line))) return { player: m[1], text: `${m[1]} ${WHY[m[2]] || m[2]}` };
  if ((m = /^NOTICE (.+)$/.exec(line))) return { player: null, text: m[1] }; // (pushed to all: no "you")
  if ((m = /^GAMEOVER (.+)$/.exec(line))) return { player: null, text: `game over: ${m[1]}` };
  if ((m = /^TURN (.+)$/.exec(line))) return { player: m[1], text: `${m[1]}'s turn` };
  return null;
}

export class PlayersPanel {
  constructor(element, { onFollow } = {}) {
    this.element = element;
    this.onFollow = onFollow;
    this.ratings = {};
    this.goal = 0;
    this.follow = null;
    this.me = null;
    this.gone = new Map(); // players who left, as last seen (a finished game still lists them)
    this.levels = 1; // levels in the world: a card says a player's level only if there are several
  }

  show(seats) {
    const present = new Set(seats.map((s) => s.name));
    for (const [name] of this.gone) if (present.has(name)) this.gone.delete(name);
    for (const seat of this.last || []) if (!present.has(seat.name)) this.gone.set(seat.name, seat);
    this.last = seats;
    const all = [...seats, ...this.gone.values()];
    if (!all.length) {
      this.element.innerHTML = `<p class="muted">nobody is playing yet</p>`;
      return;
    }
    this.element.innerHTML = all.map((seat) => {
      const left = !present.has(seat.name);
      const extras = Object.keys(seat)
        .filter((k) => !["name", "row", "col", "gold", "moves", "id"].includes(k) && (SHOWN_FIELDS.includes(k) || k.length <= 8))
        .filter((k) => k !== "level" || this.levels > 1)
        .map((k) => `<span>${FIELD_NAMES[k] || k} <b>${seat[k]}</b></span>`).join("");
      const rating = this.ratings[seat.name];
      return `<div class="card${seat.name === this.follow ? " followed" : ""}${left ? " gone" : ""}" data-player="${escapeHtml(seat.name)}">
        <span class="swatch round" style="background:${colourOf(seat.name)}"></span>
        <span class="who">${escapeHtml(seat.name)}${seat.name === this.me ? " (you)" : ""}${left ? " · left" : ""}</span>
        <span class="stats"><span>gold <b>${seat.gold ?? 0}${this.goal > 0 ? `/${this.goal}` : ""}</b></span>
        <span>moves <b>${seat.moves ?? 0}</b></span>${extras}${rating !== undefined ? `<span>rating <b>${rating.toFixed(1)}</b></span>` : ""}</span></div>`;
    }).join("");
    for (const card of this.element.querySelectorAll(".card")) {
      card.onclick = () => this.onFollow && this.onFollow(card.dataset.player === this.follow ? null : card.dataset.player);
    }
  }
}

/** Gold over the steps of the game, one line per player. */
export class ScoreChart {
  constructor(canvas) {
    this.canvas = canvas;
    this.series = new Map(); // name -> [[step, gold], ...]
    this.marker = null;
    this.last = 0;
  }

  clear() {
    this.series.clear();
    this.last = 0;
  }

  add(step, seats) {
    for (const seat of seats) {
      const points = this.series.get(seat.name) || [];
      if (!points.length || points[points.length - 1][1] !== seat.gold || points[points.length - 1][0] < step - 50) points.push([step, seat.gold ?? 0]);
      this.series.set(seat.name, points);
    }
    this.last = Math.max(this.last, step);
  }

  draw() {
    const canvas = this.canvas;
    const width = canvas.clientWidth || 300, height = canvas.clientHeight || 120;
    const dpr = window.devicePixelRatio || 1;
    canvas.width = width * dpr;
    canvas.height = height * dpr;
    const ctx = canvas.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, width, height);
    let top = 1;
    for (const points of this.series.values()) for (const [, gold] of points) top = Math.max(top, gold);
    const pad = 18;
    const x = (step) => pad + (width - pad - 6) * (this.last ? step / this.last : 0);
    const y = (gold) => height - pad - (height - pad - 6) * (gold / top);
    ctx.strokeStyle = "#30363d";
    ctx.fillStyle = "#8b949e";
    ctx.font = "11px system-ui, sans-serif";
    ctx.beginPath();
    ctx.moveTo(pad, 4); ctx.lineTo(pad, height - pad); ctx.lineTo(width - 4, height - pad);
    ctx.stroke();
    ctx.fillText(String(top), 2, 12);
    ctx.fillText("0", 6, height - pad);
    ctx.fillText(`step ${this.last}`, width - 60, height - 4);
    for (const [name, points] of this.series) {
      ctx.strokeStyle = colourOf(name);
      ctx.lineWidth = 2;
      ctx.beginPath();
      points.forEach(([step, gold], i) => {
        if (i) ctx.lineTo(x(step), y(points[i - 1][1]));
        (i ? ctx.lineTo : ctx.moveTo).call(ctx, x(step), y(gold));
      });
      ctx.lineTo(x(this.last), y(points[points.length - 1][1]));
      ctx.stroke();
    }
    if (this.marker !== null) {
      ctx.strokeStyle = "#e3b341";
      ctx.beginPath(); ctx.moveTo(x(this.marker), 4); ctx.lineTo(x(this.marker), height - pad); ctx.stroke();
    }
  }
}

/** Sentences, newest last, each with its step (a button when steps can be jumped to). */
export class EventLog {
  constructor(element, { onJump, limit = 500 } = {}) {
    this.element = element;
    this.onJump = onJump;
    this.limit = limit;
  }

  clear() {
    this.element.innerHTML = "";
  }

  add(step, event) {
    const item = document.createElement("li");
    item.dataset.step = String(step);
    const colour = event.player ? colourOf(event.player) : "#8b949e";
    item.innerHTML = `${this.onJump ? `<button class="step" title="go to step ${step}">${step}</button>` : `<span class="step">${step}</span>`}
      <span class="dot" style="background:${colour}"></span> <span class="text"></span>`;
    item.querySelector(".text").textContent = event.text;
    if (this.onJump) item.querySelector("button").onclick = () => this.onJump(step);
    const atBottom = this.element.scrollTop + this.element.clientHeight >= this.element.scrollHeight - 8;
    this.element.appendChild(item);
    while (this.element.children.length > this.limit) this.element.firstChild.remove();
    if (atBottom) this.element.scrollTop = this.element.scrollHeight;
  }

  mark(step) {
    let last = null;
    for (const item of this.element.children) {
      const on = Number(item.dataset.step) <= step;
      item.classList.toggle("future", !on);
      if (on) last = item;
    }
    for (const item of this.element.querySelectorAll(".now")) item.classList.remove("now");
    if (last) {
      last.classList.add("now");
      const box = this.element;
      if (last.offsetTop < box.scrollTop || last.offsetTop > box.scrollTop + box.clientHeight - 20) box.scrollTop = last.offsetTop - box.clientHeight / 2;
    }
  }
}
