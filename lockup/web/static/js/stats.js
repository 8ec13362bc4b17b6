// @ts-check
// The statistics page (/stats): the player's figures (GET /api/stats), by level and by
// rules, and SVG plots over time drawn by the page (charts.js). Games where a computer
// played for the player are left out by the server; the page says how many.

import { formatNumber, language, t } from "./i18n.js";
import { lineChart } from "./charts.js";
import { formatAccuracy } from "./review-core.js";
import { $, ApiError, getJSON, levelName, rulesKeyText, shortDate, formatDate, startPage } from "./pagekit.js";
import { esc } from "./text.js";

/**
 * @typedef {object} SeriesPoint
 * @property {string} date
 * @property {string} game
 * @property {string} level
 * @property {string} rules
 * @property {number | null} tricks_per_hand
 * @property {number | null} locked_per_hand
 * @property {number | null} sat_out_per_hand
 * @property {number | null} accuracy
 * @property {boolean} won
 */

/**
 * @typedef {object} Stats answer of GET /api/stats
 * @property {number} games
 * @property {number} left_out
 * @property {Record<string, {games: number, wins: number}>} by_level
 * @property {Record<string, {games: number, wins: number}>} by_rules
 * @property {{tricks: number | null, times_locked: number | null, sat_out: number | null}} per_hand
 * @property {number | null} accuracy
 * @property {SeriesPoint[]} series
 */

/** @type {Stats | null} */
let stats = null;
let loadError = "";

/** @param {number | null | undefined} x */
const num = (x) => (x == null || !Number.isFinite(x) ? "–" : formatNumber(x, 2));

/** A count as the language writes it ("1,234", "1 234", "1.234"). @param {number} x */
const count = (x) => formatNumber(x, 0);

/** @param {number} wins @param {number} games */
const share = (wins, games) => (games ? formatAccuracy((100 * wins) / games, language()) : "–");

/** @param {Record<string, {games: number, wins: number}>} groups @param {(k: string) => string} name @param {string} head */
function groupTable(groups, name, head) {
  const keys = Object.keys(groups || {}).sort((a, b) => groups[b].games - groups[a].games);
  if (!keys.length) return `<tbody><tr><td>${esc(t("stats.none"))}</td></tr></tbody>`;
  return `<thead><tr><th scope="col">${esc(head)}</th><th scope="col">${esc(t("stats.games"))}</th><th scope="col">${esc(t("stats.wins"))}</th><th scope="col">${esc(
    t("stats.winShare"),
  )}</th></tr></thead><tbody>${keys
    .map((k) => `<tr><th scope="row">${esc(name(k))}</th><td>${count(groups[k].games)}</td><td>${count(groups[k].wins)}</td><td>${share(groups[k].wins, groups[k].games)}</td></tr>`)
    .join("")}</tbody>`;
}

const METRICS = /** @type {const} */ ([
  { key: "tricks_per_hand", title: "stats.tricksPerHand", fmt: "n" },
  { key: "locked_per_hand", title: "stats.lockedPerHand", fmt: "n" },
  { key: "sat_out_per_hand", title: "stats.satOutPerHand", fmt: "n" },
  { key: "accuracy", title: "stats.accuracy", fmt: "pct" },
]);

/** The groups of the series to draw as lines. @param {SeriesPoint[]} series @param {string} split */
function groupsOf(series, split) {
  if (split === "none") return [{ key: "", name: t("stats.allGames") }];
  const keys = [...new Set(series.map((p) => (split === "level" ? p.level : p.rules)))];
  return keys.map((k) => ({ key: k, name: split === "level" ? levelName(k) : rulesKeyText(k) }));
}

function renderPlots() {
  const box = $("#plots");
  if (!stats) return;
  const lvl = /** @type {HTMLSelectElement} */ ($("#f-level")).value;
  const rules = /** @type {HTMLSelectElement} */ ($("#f-rules")).value;
  const split = /** @type {HTMLSelectElement} */ ($("#f-split")).value;
  const series = [...(stats.series || [])]
    .filter((p) => (!lvl || p.level === lvl) && (!rules || p.rules === rules))
    .sort((a, b) => a.date.localeCompare(b.date));
  $("#no-series").hidden = series.length > 0;
  if (!series.length) {
    box.innerHTML = "";
    return;
  }
  const groups = groupsOf(series, split).slice(0, 4);
  const labels = series.map((p) => shortDate(p.date));
  box.innerHTML = METRICS.map((m) => {
    const fmt = m.fmt === "pct" ? (/** @type {number} */ v) => formatAccuracy(v, language()) : (/** @type {number} */ v) => formatNumber(v, 0, { max: 2 });
    const lines = groups.map((g, gi) => ({
      name: g.name,
      cls: `s${gi}`,
      values: series.map((p) => (!g.key || (split === "level" ? p.level : p.rules) === g.key ? p[m.key] : null)),
      pointCls: series.map((p) => (p.won ? "won" : null)),
      pointLabel: series.map((p) => `${formatDate(p.date)}: ${m.fmt === "pct" ? formatAccuracy(p[m.key], language()) : num(p[m.key])}${p.won ? ` (${t("stats.wonGame")})` : ""}`),
    }));
    const svg = lineChart({
      label: t("stats.chartLabel", { what: t(m.title), n: series.length }),
      xLabels: labels,
      series: lines,
      connect: true,
      minTop: m.fmt === "pct" ? 100 : 1,
      formatY: fmt,
      width: 420,
      height: 200,
    });
    const legend = groups.map((g, gi) => `<span class="key s${gi}"></span> ${esc(g.name)}`).join(" ");
    const rows = series
      .map(
        (p) =>
          `<tr><td>${esc(formatDate(p.date))}</td><td>${esc(levelName(p.level))}</td><td>${esc(rulesKeyText(p.rules))}</td><td>${
            m.fmt === "pct" ? formatAccuracy(p[m.key], language()) : num(p[m.key])
          }</td><td>${p.won ? esc(t("stats.yes")) : ""}</td></tr>`,
      )
      .join("");
    return `<figure data-metric="${m.key}"><figcaption>${esc(t(m.title))}</figcaption>${svg}<p class="legend">${legend} <span class="key won-key"></span>${esc(
      t("stats.legendWon"),
    )}</p><details class="as-table"><summary>${esc(t("stats.asTable"))}</summary><div class="scroll-x"><table class="rv-table"><thead><tr><th scope="col">${esc(
      t("history.date"),
    )}</th><th scope="col">${esc(t("stats.level"))}</th><th scope="col">${esc(t("stats.rules"))}</th><th scope="col">${esc(t(m.title))}</th><th scope="col">${esc(
      t("stats.wonGame"),
    )}</th></tr></thead><tbody>${rows}</tbody></table></div></details></figure>`;
  }).join("");
}

function render() {
  document.title = `${t("stats.title")} · Lockup`;
  const err = $("#load-error");
  err.hidden = !loadError;
  err.textContent = loadError;
  if (!stats) return;
  const s = stats;
  const wins = Object.values(s.by_level || {}).reduce((n, g) => n + g.wins, 0);
  const fig = (/** @type {string} */ key, /** @type {string} */ value) => `<div><dt>${esc(t(key))}</dt><dd>${esc(value)}</dd></div>`;
  $("#figures").innerHTML =
    fig("stats.games", count(s.games)) +
    fig("stats.wins", s.games ? `${count(wins)} (${share(wins, s.games)})` : count(0)) +
    fig("stats.tricksPerHand", num(s.per_hand?.tricks)) +
    fig("stats.lockedPerHand", num(s.per_hand?.times_locked)) +
    fig("stats.satOutPerHand", num(s.per_hand?.sat_out)) +
    fig("stats.accuracy", formatAccuracy(s.accuracy, language()));
  $("#left-out").textContent = s.left_out ? t("stats.leftOut", { n: s.left_out }) : t("stats.leftOutNone");
  document.body.dataset.leftOut = String(s.left_out || 0);
  $("#by-level").innerHTML = groupTable(s.by_level, levelName, t("stats.level"));
  $("#by-rules").innerHTML = groupTable(s.by_rules, rulesKeyText, t("stats.rules"));
  /** @param {string} id @param {string[]} keys @param {(k: string) => string} name @param {string} all */
  const fill = (id, keys, name, all) => {
    const sel = /** @type {HTMLSelectElement} */ ($(id));
    const keep = sel.value;
    sel.innerHTML = `<option value="">${esc(t(all))}</option>` + keys.map((k) => `<option value="${esc(k)}">${esc(name(k))}</option>`).join("");
    sel.value = keys.includes(keep) ? keep : "";
  };
  fill("#f-level", [...new Set([...Object.keys(s.by_level || {}), ...s.series.map((p) => p.level)])], levelName, "stats.all");
  fill("#f-rules", [...new Set([...Object.keys(s.by_rules || {}), ...s.series.map((p) => p.rules)])], rulesKeyText, "stats.allRules");
  renderPlots();
}

async function main() {
  $("#filters").addEventListener("change", renderPlots);
  $("#filters").addEventListener("submit", (e) => e.preventDefault());
  await startPage(render);
  try {
    stats = await getJSON("/api/stats");
    loadError = "";
  } catch (err) {
    loadError = err instanceof ApiError ? err.message : String(err);
  }
  render();
  document.body.dataset.ready = "true";
}

main();
