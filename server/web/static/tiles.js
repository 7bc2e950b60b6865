// Tile sets, learnt from what the world itself says: HELP's "Tiles:" (or "Cells:") line names
// each glyph ("# wall, G gold, E exit"), and each name is drawn by what it means. A world
// whose HELP names no glyphs is drawn plainly: every character as text on a square.

/** How a tile is drawn, by the words a world uses for it (first match wins). */
const KINDS = [
  ["wall", /\b(wall|pillar|rock)\b/],
  ["abyss", /\b(abyss|pit|chasm|water|lava)\b/],
  ["exit", /\b(exit|ladder|goal|stairs)\b/],
  ["door", /\bdoor\b/],
  ["gold", /\b(gold|treasure|coin)/],
  ["foe", /\b(monster|bat|baddie|enemy|dragon|ghost)/],
  ["hazard", /\b(trap|spike|fire)/],
  ["item", /\b(item|potion|amulet|lantern|sword|armou?r|key)/],
  ["crossed", /\bcrossed\b/],
  ["floor", /\b(floor|open|nothing|empty|space)\b/],
];

/** The look of each kind: the square's fill, and what is drawn on it. */
export const STYLE = {
  floor: { fill: "#1d232b" },
  wall: { fill: "#4a5361", edge: "#6b7686" },
  abyss: { fill: "#120a24", mark: "#6e40c9" },
  exit: { fill: "#1d232b", mark: "#2ea043" },
  door: { fill: "#1d232b", mark: "#58a6ff" },
  gold: { fill: "#1d232b", mark: "#e3b341" },
  foe: { fill: "#1d232b", mark: "#f85149" },
  hazard: { fill: "#3a1d14", mark: "#db6d28" },
  item: { fill: "#1d232b", mark: "#79c0ff" },
  crossed: { fill: "#2b2f36" },
  unknown: { fill: "#161b22", text: "#8b949e" },
};

/** A tile set: glyph -> { kind, words } from HELP's lines; null if they name no glyphs. */
export function tilesFromHelp(lines) {
  const tiles = {};
  for (const line of lines) {
    const match = /^(?:Tiles|Cells):\s*(.*)$/.exec(line.trim());
    if (!match) continue;
    for (const part of match[1].replace(/\.$/, "").split(/[,;]\s*/)) {
      const tokens = part.trim().split(/\s+/);
      const glyphs = [];
      while (tokens.length > 1 && tokens[0].length === 1) glyphs.push(tokens.shift());
      const words = tokens.join(" ");
      if (!glyphs.length || !words) continue;
      const kind = (KINDS.find(([, pattern]) => pattern.test(words.toLowerCase())) || ["unknown"])[0];
      for (const glyph of glyphs) tiles[glyph] = { kind, words };
    }
  }
  // " " reads as floor wherever "." does (the 2013 maps' cavern edges).
  if (tiles["."] && !tiles[" "]) tiles[" "] = tiles["."];
  return Object.keys(tiles).length ? tiles : null;
}

/** The glyphs of players in a spectator's view (docs/protocol.md: P people, B bots). */
export const PLAYER_GLYPHS = new Set(["P", "B"]);

/** A square's text in a world drawing squares as numbers ("  (-2) " -> -2), or null. */
export function cellNumber(text) {
  const match = /-?\d+/.exec(text);
  return match ? Number(match[0]) : null;
}
