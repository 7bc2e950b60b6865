// Tournaments that dod-arena plays into this server's records store (one machine's run, in
// its own SQLite or PostgreSQL store, or workers on any hosts sharing a PostgreSQL
// database): the list, and one tournament's progress, contract, table and matches. Both
// ask /api/tournaments again every few seconds while they are shown, so they move as the
// workers store results; a page of matches at a time, never the whole tournament.

import { escapeHtml } from "./panels.js";

const POLL_MS = 3000;
const PAGE = 100; // matches a page shows (the server gives at most 500)

async function fetchJSON(url) {
  const response = await fetch(url, { cache: "no-store" });
  const body = await response.json();
  return { ok: response.ok, body };
}

function when(text) {
  return text ? escapeHtml(String(text).slice(0, 19).replace("T", " ")) : "";
}

/** Call `fill` now and every POLL_MS until closed; the handle's close() stops it. A look
 * that fails (the server restarting, the network down) is told in `element` and tried again. */
function polling(fill, element) {
  let timer = null, closed = false;
  const tick = async () => {
    try {
      await fill();
    } catch (error) {
      if (!closed) element.innerHTML = `<span class="notice">the server did not answer (${escapeHtml(String(error.message || error))}); trying again</span>`;
    } finally {
      if (!closed) timer = setTimeout(tick, POLL_MS);
    }
  };
  tick();
  return { close: () => { closed = true; clearTimeout(timer); } };
}

export function showTournaments(page) {
  page.innerHTML = `<h1>Tournaments</h1><p class="muted">What <code>dod-arena</code> plays
    into this server's records store (one machine's run, or workers sharing it), updated every few seconds.</p><div id="tournaments">loading…</div>`;
  const element = page.querySelector("#tournaments");
  return polling(async () => {
    const { ok, body } = await fetchJSON("/api/tournaments");
    if (!ok) {
      element.innerHTML = `<p class="notice">${escapeHtml(body.error)}</p>`;
      return;
    }
    if (!body.tournaments.length) {
      element.textContent = "No tournaments here yet (dod-arena ... --db on this server's store, or dod-arena submit).";
      return;
    }
    element.innerHTML = `<div class="scroll"><table id="tournament-list"><thead><tr><th>tournament</th><th>worlds</th>
      <th>entrants</th><th>done</th><th>playing</th><th>waiting</th><th>failed</th><th>workers</th><th>submitted</th>
      <th>finished</th></tr></thead><tbody>${body.tournaments
        .map((t) => `<tr data-tournament="${escapeHtml(t.name)}"><td><a href="#/tournaments/${encodeURIComponent(t.name)}">${escapeHtml(t.name)}</a></td>
          <td>${escapeHtml(t.worlds.join(", "))}</td><td>${t.entrants || ""}</td>
          <td class="done">${t.done} / ${t.scheduled}</td><td class="playing">${t.playing}</td><td class="waiting">${t.waiting}</td>
          <td class="failed">${t.failed}</td><td class="workers">${t.workers}</td><td>${when(t.submitted)}</td><td>${when(t.finished) || "—"}</td></tr>`)
        .join("")}</tbody></table></div>`;
  }, element);
}

function tableHtml(lines) {
  return `<div class="scroll"><table id="standings"><thead><tr><th>#</th><th>bot</th><th>rating</th><th>μ ± σ</th><th>games</th>
    <th>wins</th><th>mean place</th><th>gold</th><th>outcomes</th></tr></thead><tbody>${lines
      .map((l) => `<tr data-bot="${escapeHtml(l.name)}"><td>${l.rank}</td><td>${escapeHtml(l.name)}</td><td>${l.rating.toFixed(2)}</td>
        <td>${l.mu.toFixed(2)} ± ${l.sigma.toFixed(2)}</td><td class="games">${l.games}</td><td>${l.wins}</td>
        <td>${l.mean_place === null ? "-" : l.mean_place.toFixed(2)}</td><td>${l.gold}</td>
        <td>${escapeHtml(Object.entries(l.outcomes).sort().map(([k, v]) => `${k} ${v}`).join(" "))}</td></tr>`)
      .join("")}</tbody></table></div>`;
}

/** A match's replay and its bots' logs, where this server holds them. */
function linksHtml(result) {
  const links = [];
  if (result.replay) links.push(`<a class="replay" href="#/replay/${encodeURIComponent(result.replay)}">replay</a>`);
  for (const [bot, file] of Object.entries(result.logs || {}).sort()) {
    links.push(`<a class="log" href="/replays/${encodeURIComponent(file)}" target="_blank">${escapeHtml(bot)}'s log</a>`);
  }
  return links.length ? ` <span class="links">[${links.join(" · ")}]</span>` : "";
}

function resultText(match) {
  const result = match.result;
  if (!result) return match.state === "playing" ? `being played by ${escapeHtml(match.worker || "?")}` : "";
  if (result.failed) return `failed: ${escapeHtml(result.failed)}${linksHtml(result)}`;
  return result.players.map((p) => `${p.place}. ${escapeHtml(p.name ?? "(no name)")} (${escapeHtml(p.outcome)}, gold ${p.gold})`).join(" · ") + linksHtml(result);
}

function contractHtml(lines) {
  if (!lines || !lines.length) return "";
  return `<div id="contract"><b>The contract</b> this table was made by:<ul>${lines.map((l) => `<li>${escapeHtml(l)}</li>`).join("")}</ul></div>`;
}

function matchesHtml(matches) {
  if (!matches.length) return `<p class="muted">No matches here.</p>`;
  return `<div class="scroll"><table id="matches"><thead><tr><th>#</th><th>entrants</th><th>world</th><th>seed</th><th>state</th>
    <th>worker</th><th>attempts</th><th>result</th></tr></thead><tbody>${matches
      .map((m) => `<tr data-match="${m.number}" class="state-${escapeHtml(m.state)}"><td>${m.number}</td><td>${escapeHtml(m.entrants.join(" v "))}</td>
        <td>${escapeHtml(m.world ?? "")}${m.map ? ` · ${escapeHtml(m.map)}` : ""}</td><td>${escapeHtml(String(m.seed ?? ""))}</td>
        <td class="state">${escapeHtml(m.state)}</td><td>${escapeHtml(m.worker ?? "")}</td><td>${m.attempts}</td><td>${resultText(m)}</td></tr>`)
      .join("")}</tbody></table></div>`;
}

export function showTournament(page, name, query) {
  const from = Math.max(0, Number(query.get("from")) || 0);
  const state = query.get("state") || "";
  page.innerHTML = `<h1>Tournament <span id="tournament-name"></span></h1>
    <p class="status" id="progress">loading…</p>
    <h2>Table so far</h2><div id="table"></div>
    <h2>Matches</h2><div class="controls"><label>show <select id="state">
      ${["", "waiting", "playing", "done", "failed"].map((s) => `<option value="${s}"${s === state ? " selected" : ""}>${s || "all"}</option>`).join("")}
      </select></label><a id="first" href="#">first</a><a id="older" href="#">next ${PAGE}</a></div><div id="matches-page"></div>`;
  page.querySelector("#tournament-name").textContent = name;
  const base = `#/tournaments/${encodeURIComponent(name)}`;
  const link = (start, narrowed) => `${base}?${new URLSearchParams({ ...(start ? { from: start } : {}), ...(narrowed ? { state: narrowed } : {}) })}`;
  page.querySelector("#state").onchange = (event) => (location.hash = link(0, event.target.value));
  page.querySelector("#first").href = link(0, state);
  const params = new URLSearchParams({ from: String(from), count: String(PAGE), ...(state ? { state } : {}) });
  return polling(async () => {
    const { ok, body } = await fetchJSON(`/api/tournaments/${encodeURIComponent(name)}?${params}`);
    const progress = page.querySelector("#progress");
    if (!ok) {
      progress.innerHTML = `<span class="notice">${escapeHtml(body.error)}</span>`;
      return;
    }
    const t = body.tournament;
    progress.innerHTML = `<b id="done">${t.done}</b> of <b id="scheduled">${t.scheduled}</b> games done,
      <b id="playing">${t.playing}</b> being played, <b id="waiting">${t.waiting}</b> waiting,
      <b id="failed">${t.failed}</b> failed · <b id="workers">${t.workers}</b> workers holding leases ·
      ${t.claims} claims · ${escapeHtml(t.worlds.join(", "))}, ${escapeHtml(t.format || "")} · submitted ${when(t.submitted)}
      ${t.finished ? ` · <b>finished</b> ${when(t.finished)}` : ""}`;
    page.querySelector("#table").innerHTML = contractHtml(t.contract) + tableHtml(body.table) +
      (body.table_complete ? "" : `<p class="muted">rated from the first ${body.table_recorded} records; more on the next look</p>`);
    page.querySelector("#matches-page").innerHTML = matchesHtml(body.matches);
    const older = page.querySelector("#older");
    older.hidden = body.next === null;
    if (body.next !== null) older.href = link(body.next, state);
  }, page.querySelector("#progress"));
}
