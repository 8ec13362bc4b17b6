// @ts-check
// The leaderboard page (/leaderboard): rated accounts past their provisional games and
// computer levels by their rating (GET /api/leaderboard). The rating shown is openskill's
// ordinal, mu - 3 sigma, with one decimal here and on the history page (docs/ratings.md);
// the player's own row is marked, and a line says their own rating (GET /api/ratings/me):
// provisional ("12.3?") before the leaderboard lists them, or that guests play unrated.

import { formatNumber, t } from "./i18n.js";
import { $, ApiError, getJSON, levelName, startPage } from "./pagekit.js";
import { esc } from "./text.js";

/** @type {import("./types.js").LeaderboardEntry[] | null} */
let rows = null;
/** @type {import("./types.js").MyRating | null} */
let mine = null;
let minGames = 10;
let loadError = "";

/** A rating as shown everywhere: one decimal. @param {number} x */
const ratingText = (x) => formatNumber(x, 1);

/** A row's name: a person's chosen name, or a computer level's with a badge. @param {import("./types.js").LeaderboardEntry} e */
function nameOf(e) {
  if (e.kind === "computer") return `${esc(levelName(e.level))} <span class="badge">${esc(t("lb.computer"))}</span>`;
  return esc(e.name || t("lb.noName"));
}

/** @param {import("./types.js").LeaderboardEntry} e */
function row(e) {
  const label = (/** @type {string} */ key) => ` data-label="${esc(t(key))}"`;
  const you = e.you ? ` <span class="badge won">${esc(t("lb.you"))}</span>` : "";
  const cls = [e.kind, e.you ? "you" : ""].filter(Boolean).join(" ");
  return `<tr class="${cls}" data-kind="${e.kind}"${e.you ? ' data-you="true"' : ""}>
    <td${label("lb.rank")} class="rank">${esc(formatNumber(e.rank, 0))}</td>
    <th scope="row"${label("lb.player")}>${nameOf(e)}${you}</th>
    <td${label("lb.rating")} class="num rating">${esc(ratingText(e.rating))}</td>
    <td${label("lb.mu")} class="num">${esc(formatNumber(e.mu, 2))}</td>
    <td${label("lb.sigma")} class="num">${esc(formatNumber(e.sigma, 2))}</td>
    <td${label("lb.games")} class="num">${esc(formatNumber(e.games, 0))}</td>
  </tr>`;
}

function render() {
  document.title = `${t("lb.title")} · Lockup`;
  const err = $("#load-error");
  err.hidden = !loadError;
  err.textContent = loadError;
  $("#board tbody").innerHTML = (rows || []).map(row).join("");
  $("#empty").hidden = !rows || rows.length > 0;
  $("#listed").textContent = t("lb.listed", { n: minGames });
  $("#yours").textContent = yours();
  $("#yours").dataset.state = !rows ? "" : mine?.guest ? "guest" : mine?.provisional && mine.rating != null ? "provisional" : "";
}

/** The line about the player's own rating. */
function yours() {
  if (!rows) return "";
  const me = rows.find((e) => e.you);
  if (me) return t("lb.yours", { rating: ratingText(me.rating), rank: me.rank, n: me.games });
  if (mine?.guest) return t("lb.guest");
  if (mine && mine.rating != null && mine.provisional)
    return t("lb.provisional", { rating: ratingText(mine.rating), games: mine.games, n: mine.min_games });
  return t("lb.notYet");
}

async function main() {
  await startPage(render);
  try {
    const [board, me] = await Promise.all([getJSON("/api/leaderboard"), getJSON("/api/ratings/me")]);
    rows = board.players || [];
    minGames = board.min_games ?? minGames;
    mine = me;
    loadError = "";
  } catch (err) {
    loadError = err instanceof ApiError ? err.message : String(err);
  }
  render();
  document.body.dataset.ready = "true";
}

main();
