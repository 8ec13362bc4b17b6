// Every message of the page that shows a count, rendered in English, French and Icelandic
// for the counts 0, 1, 2, 5, 21 and 101 and checked against the forms written below: the
// noun, adjective and verb each language wants with that number, in the case its
// preposition governs ("eftir 1 stigaleik", "eftir 5 stigaleiki", "af 10 stigaleikjum").
// The table is written by hand, never taken from the code under test; so is each
// language's category of each count (CLDR: French 0 and 1 singular; Icelandic 1, 21, 101
// singular). Every plural family of the catalogue must be in the table, and a message with a
// number that is not plural must be on the list of deliberate ones, with its reason. The
// same checks run with the browser's plural rules and with i18n.js's own CLDR rules (as in
// a browser whose Intl lacks the language). Run with `node --test tests/js/`.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const DIR = fileURLToPath(new URL("../../lockup/web/static/i18n/", import.meta.url));
const load = (/** @type {string} */ lang) => JSON.parse(readFileSync(`${DIR}${lang}.json`, "utf-8"));
const EN = load("en");
const LANGS = ["en", "fr", "is"];
const COUNTS = [0, 1, 2, 5, 21, 101];

/** Each count's plural category, as CLDR gives it (written out: the test's own truth). */
const CATEGORY = /** @type {Record<string, Record<number, "one" | "other">>} */ ({
  en: { 0: "other", 1: "one", 2: "other", 5: "other", 21: "other", 101: "other" },
  fr: { 0: "one", 1: "one", 2: "other", 5: "other", 21: "other", 101: "other" },
  is: { 0: "other", 1: "one", 2: "other", 5: "other", 21: "one", 101: "one" },
});

/** What the other placeholders are filled with (none of them a count). */
const PARAMS = { name: "Ann", names: "Ann", rating: "3.0", rank: 2, games: 3, num: 4, best: "BEST", what: "WHAT" };

/**
 * @typedef {string | string[]} Forms fragments the message must hold ({n}: the count)
 * @typedef {{en: [Forms, Forms], fr: [Forms, Forms], is: [Forms, Forms], exact?: Record<string, Forms>}} Family
 *   [singular, plural] per language; `exact`: the forms for exactly 1, where a language says it without the number
 */

/** @type {Record<string, Family>} */
const FAMILIES = {
  "account.rated": {
    en: ["{n} rated game,", "{n} rated games,"],
    fr: ["{n} partie classée,", "{n} parties classées,"],
    is: ["{n} stigaleikur,", "{n} stigaleikir,"],
  },
  "account.ended": {
    en: ["{n} other session signed out.", "{n} other sessions signed out."],
    fr: ["{n} autre session déconnectée.", "{n} autres sessions déconnectées."],
    is: ["{n} annarri innskráningu lokið.", "{n} öðrum innskráningum lokið."],
  },
  "hand.label": { en: ["{n} card", "{n} cards"], fr: ["{n} carte", "{n} cartes"], is: ["{n} spil", "{n} spil"] },
  "seat.summary": { en: ["Ann, {n} card", "Ann, {n} cards"], fr: ["Ann, {n} carte", "Ann, {n} cartes"], is: ["Ann, {n} spil", "Ann, {n} spil"] },
  "seat.tricks": {
    en: ["{n} trick this hand", "{n} tricks this hand"],
    fr: ["{n} pli cette main", "{n} plis cette main"],
    is: ["{n} slagur í þessari gjöf", "{n} slagir í þessari gjöf"],
  },
  "seat.tricksShort": { en: ["{n} trick", "{n} tricks"], fr: ["{n} pli", "{n} plis"], is: ["{n} slagur", "{n} slagir"] },
  "seat.points": { en: ["{n} pt", "{n} pts"], fr: ["{n} pt", "{n} pts"], is: ["{n} stig", "{n} stig"] },
  "seat.cards": { en: ["{n} card", "{n} cards"], fr: ["{n} carte", "{n} cartes"], is: ["{n} spil", "{n} spil"] },
  "seat.locked": {
    en: ["sits out {n} more trick", "sits out {n} more tricks"],
    fr: ["passe encore {n} pli", "passe encore {n} plis"],
    is: ["situr hjá í {n} slag enn", "situr hjá í {n} slögum enn"],
  },
  "prompt.locked": {
    en: ["you sit out this trick.", "you sit out {n} tricks."],
    fr: ["vous passez {n} pli.", "vous passez {n} plis."],
    is: ["þú situr hjá í {n} slag.", "þú situr hjá í {n} slögum."],
    exact: { fr: "vous passez ce pli.", is: "þú situr hjá í þessum slag." },
  },
  "score.caption": {
    en: ["with {n} point or more", "with {n} points or more"],
    fr: ["avec {n} point ou plus", "avec {n} points ou plus"],
    is: ["með {n} stig eða fleiri", "með {n} stig eða fleiri"],
  },
  "last.wonLock": {
    en: ["Trick 4: won by Ann, locked up for {n} trick", "Trick 4: won by Ann, locked up for {n} tricks"],
    fr: ["Pli 4 : remporté par Ann, enfermé pour {n} pli", "Pli 4 : remporté par Ann, enfermé pour {n} plis"],
    is: ["Slagur 4: Ann fékk hann, í lás í {n} slag", "Slagur 4: Ann fékk hann, í lás í {n} slagi"],
  },
  "last.wonLock.you": {
    en: ["won by you, locked up for {n} trick", "won by you, locked up for {n} tricks"],
    fr: ["remporté par vous, enfermé pour {n} pli", "remporté par vous, enfermé pour {n} plis"],
    is: ["þú fékkst hann, í lás í {n} slag", "þú fékkst hann, í lás í {n} slagi"],
  },
  "ann.trickLock": {
    en: ["Ann wins the trick with a club and sits out the next trick.", ["with {n} clubs", "sits out the next {n} tricks."]],
    fr: [["avec {n} trèfle", "passe {n} pli."], ["avec {n} trèfles", "passe les {n} plis suivants."]],
    is: [["Ann fær slaginn með {n} laufi", "situr hjá í {n} slag."], ["með {n} laufum", "situr hjá í næstu {n} slögum."]],
    exact: { fr: "Ann remporte le pli avec un trèfle et passe le pli suivant.", is: "Ann fær slaginn með laufi og situr hjá í næsta slag." },
  },
  "ann.trickLock.you": {
    en: ["You win the trick with a club and sit out the next trick.", ["with {n} clubs", "sit out the next {n} tricks."]],
    fr: [["avec {n} trèfle", "passez {n} pli."], ["avec {n} trèfles", "passez les {n} plis suivants."]],
    is: [["Þú færð slaginn með {n} laufi", "situr hjá í {n} slag."], ["með {n} laufum", "situr hjá í næstu {n} slögum."]],
    exact: { fr: "Vous remportez le pli avec un trèfle et passez le pli suivant.", is: "Þú færð slaginn með laufi og situr hjá í næsta slag." },
  },
  "sum.empty": {
    en: ["{n} trick was empty:", "{n} tricks were empty:"],
    fr: ["{n} pli a été vide :", "{n} plis ont été vides :"],
    is: ["{n} slagur var tómur:", "{n} slagir voru tómir:"],
  },
  "tip.lock": {
    en: ["Ann is locked up: sits out {n} more trick and", "Ann is locked up: sits out {n} more tricks and"],
    fr: ["passe encore {n} pli et", "passe encore {n} plis et"],
    is: ["situr hjá í {n} slag enn", "situr hjá í {n} slögum enn"],
  },
  "tip.lock.you": {
    en: ["you sit out {n} more trick and", "you sit out {n} more tricks and"],
    fr: ["vous passez encore {n} pli et", "vous passez encore {n} plis et"],
    is: ["þú situr hjá í {n} slag enn", "þú situr hjá í {n} slögum enn"],
  },
  "count.times": { en: ["{n} time", "{n} times"], fr: ["{n} fois", "{n} fois"], is: ["{n} sinni", "{n} sinnum"] },
  "flash.lock": {
    en: ["Ann is locked up for {n} trick", "Ann is locked up for {n} tricks"],
    fr: ["Ann est enfermé pour {n} pli", "Ann est enfermé pour {n} plis"],
    is: ["Ann er í lás í {n} slag", "Ann er í lás í {n} slagi"],
  },
  "flash.lock.you": {
    en: ["You are locked up for {n} trick", "You are locked up for {n} tricks"],
    fr: ["Vous êtes enfermé pour {n} pli", "Vous êtes enfermé pour {n} plis"],
    is: ["Þú ert í lás í {n} slag", "Þú ert í lás í {n} slagi"],
  },
  "err.rate-limited-wait": {
    en: ["try again in {n} second.", "try again in {n} seconds."],
    fr: ["réessayez dans {n} seconde.", "réessayez dans {n} secondes."],
    is: ["reyndu aftur eftir {n} sekúndu.", "reyndu aftur eftir {n} sekúndur."],
  },
  "count.lost": { en: ["{n} card lost", "{n} cards lost"], fr: ["{n} carte perdue", "{n} cartes perdues"], is: ["{n} spil misst", "{n} spil misst"] },
  "lb.yours": {
    en: ["after {n} rated game.", "after {n} rated games."],
    fr: ["après {n} partie classée.", "après {n} parties classées."],
    is: ["eftir {n} stigaleik.", "eftir {n} stigaleiki."],
  },
  "lb.provisional": {
    en: ["3 of {n} rated game;", "3 of {n} rated games;"],
    fr: ["3 sur {n} partie classée ;", "3 sur {n} parties classées ;"],
    is: ["3 af {n} stigaleik;", "3 af {n} stigaleikjum;"],
  },
  "lb.listed": {
    en: ["listed after {n} rated game (", "listed after {n} rated games ("],
    fr: ["au classement après {n} partie classée (", "au classement après {n} parties classées ("],
    is: ["eftir {n} stigaleik (", "eftir {n} stigaleiki ("],
  },
  "history.ratingNow": {
    en: ["on the leaderboard, {n} rated game).", "on the leaderboard, {n} rated games)."],
    fr: ["au classement, {n} partie classée).", "au classement, {n} parties classées)."],
    is: ["á stigatöflunni, {n} stigaleikur).", "á stigatöflunni, {n} stigaleikir)."],
  },
  "history.ratingChart": {
    en: ["over your {n} rated game", "over your {n} rated games"],
    fr: ["sur {n} partie classée", "au fil de vos {n} parties classées"],
    is: ["yfir {n} stigaleik", "yfir {n} stigaleiki"],
  },
  "review.total": { en: ["{n} pt in all", "{n} pts in all"], fr: ["{n} pt en tout", "{n} pts en tout"], is: ["{n} stig alls", "{n} stig alls"] },
  "review.cardValue": {
    en: ["{n} expected trick", "{n} expected tricks"],
    fr: ["{n} pli espéré", "{n} plis espérés"],
    is: ["{n} væntanlegur slagur", "{n} væntanlegir slagir"],
  },
  "review.verdictSmall": {
    en: ["{n} expected trick lost.", "{n} expected tricks lost."],
    fr: ["{n} pli espéré perdu.", "{n} plis espérés perdus."],
    is: ["{n} væntanlegur slagur tapaður.", "{n} væntanlegir slagir tapaðir."],
  },
  "review.verdict.inaccuracy": {
    en: ["An inaccuracy: {n} expected trick lost;", "An inaccuracy: {n} expected tricks lost;"],
    fr: ["Une imprécision : {n} pli espéré perdu ;", "Une imprécision : {n} plis espérés perdus ;"],
    is: ["Ónákvæmni: {n} væntanlegur slagur tapaður;", "Ónákvæmni: {n} væntanlegir slagir tapaðir;"],
  },
  "review.verdict.mistake": {
    en: ["A mistake: {n} expected trick lost;", "A mistake: {n} expected tricks lost;"],
    fr: ["Une erreur : {n} pli espéré perdu ;", "Une erreur : {n} plis espérés perdus ;"],
    is: ["Mistök: {n} væntanlegur slagur tapaður;", "Mistök: {n} væntanlegir slagir tapaðir;"],
  },
  "review.verdict.blunder": {
    en: ["A blunder: {n} expected trick lost;", "A blunder: {n} expected tricks lost;"],
    fr: ["Une gaffe : {n} pli espéré perdu ;", "Une gaffe : {n} plis espérés perdus ;"],
    is: ["Afleikur: {n} væntanlegur slagur tapaður;", "Afleikur: {n} væntanlegir slagir tapaðir;"],
  },
  "review.target": {
    en: ["{n} point to win", "{n} points to win"],
    fr: ["{n} point pour gagner", "{n} points pour gagner"],
    is: ["{n} stig til sigurs", "{n} stig til sigurs"],
  },
  "stats.leftOut": {
    en: ["{n} game where a computer played for you is left out", "{n} games where a computer played for you are left out"],
    fr: ["{n} partie où un ordinateur a joué pour vous est laissée de côté", "{n} parties où un ordinateur a joué pour vous sont laissées de côté"],
    is: ["{n} leikur þar sem tölva spilaði fyrir þig er ekki talinn með", "{n} leikir þar sem tölva spilaði fyrir þig eru ekki taldir með"],
  },
  "stats.chartLabel": {
    en: ["WHAT in {n} game;", "WHAT in each of {n} games,"],
    fr: ["WHAT pour {n} partie ;", "WHAT pour chacune des {n} parties,"],
    is: ["WHAT í {n} leik;", "WHAT í hverjum af {n} leikjum,"],
  },
  // {n}: how many people the rematch waits for (not shown): the verb agrees with them.
  "room.rematchAwaited": {
    en: ["Rematch: waiting for Ann", "Rematch: waiting for Ann"],
    fr: ["Ann n'a pas encore répondu", "n'ont pas encore répondu"],
    is: ["Ann á eftir að svara", "eiga eftir að svara"],
  },
  "room.seconds": { en: ["{n} second", "{n} seconds"], fr: ["{n} seconde", "{n} secondes"], is: ["{n} sekúnda", "{n} sekúndur"] },
  "room.watchers": { en: ["{n} watching", "{n} watching"], fr: ["{n} spectateur", "{n} spectateurs"], is: ["{n} horfir á", "{n} horfa á"] },
  "room.clock": { en: ["{n} s", "{n} s"], fr: ["{n} s", "{n} s"], is: ["{n} s", "{n} s"] },
  "room.clockLabel": {
    en: ["{n} second left to play", "{n} seconds left to play"],
    fr: ["{n} seconde pour jouer", "{n} secondes pour jouer"],
    is: ["{n} sekúnda eftir til að spila", "{n} sekúndur eftir til að spila"],
  },
  "room.clockWarn": {
    en: ["{n} second left to play your card.", "{n} seconds left to play your card."],
    fr: ["Plus que {n} seconde pour jouer", "Plus que {n} secondes pour jouer"],
    is: ["{n} sekúnda eftir til að spila spilinu þínu.", "{n} sekúndur eftir til að spila spilinu þínu."],
  },
  "room.abandoned.timeouts": {
    en: ["Ann ran out of time {n} time:", "Ann ran out of time {n} times:"],
    fr: ["Ann a dépassé le temps {n} fois :", "Ann a dépassé le temps {n} fois :"],
    is: ["Ann lét tímann renna út {n} sinni:", "Ann lét tímann renna út {n} sinnum:"],
  },
  "room.abandonedYou.timeouts": {
    en: ["You ran out of time {n} time:", "You ran out of time {n} times:"],
    fr: ["Vous avez dépassé le temps {n} fois :", "Vous avez dépassé le temps {n} fois :"],
    is: ["Tíminn þinn rann út {n} sinni:", "Tíminn þinn rann út {n} sinnum:"],
  },
  "room.takeoverIn": {
    en: ["A computer plays for Ann in {n} s", "A computer plays for Ann in {n} s"],
    fr: ["Un ordinateur joue pour Ann dans {n} s", "Un ordinateur joue pour Ann dans {n} s"],
    is: ["Ann: tölva tekur við eftir {n} s", "Ann: tölva tekur við eftir {n} s"],
  },
  "room.chatNew": {
    en: ["{n} new message", "{n} new messages"],
    fr: ["{n} nouveau message", "{n} nouveaux messages"],
    is: ["{n} ný skilaboð", "{n} ný skilaboð"],
  },
  "lobby.seated": {
    en: ["{n} of 4 seats taken", "{n} of 4 seats taken"],
    fr: ["{n} place prise sur 4", "{n} places prises sur 4"],
    is: ["{n} af 4 sætum setið", "{n} af 4 sætum setin"],
  },
  "lobby.target": { en: ["to {n} point", "to {n} points"], fr: ["en {n} point", "en {n} points"], is: ["upp í {n} stig", "upp í {n} stig"] },
  "quick.status": {
    en: ["Finding players: {n} of 4 here", "Finding players: {n} of 4 here"],
    fr: ["{n} sur 4 présent", "{n} sur 4 présents"],
    is: ["Leitað að spilurum: {n} af 4 kominn", "Leitað að spilurum: {n} af 4 komnir"],
  },
};

/**
 * Messages with a number that are deliberately not plural, and why. A key with a number
 * placeholder that is neither plural nor here fails the test.
 * @type {Record<string, string>}
 */
const NOT_PLURAL = {
  "middle.label": "the number of the trick under way (Trick 3 of 13): a position, no counted noun",
  "info.trickOf": "the number of the trick under way (3 of 13): a position",
  "review.moveOf": "a position in the game (move 12 of 60)",
  "ann.deal": "a hand's number (Hand 3): a name, not a count",
  "ann.deal.you": "a hand's number (Hand 3): a name, not a count",
  "ann.handOver": "a hand's number (Hand 3 is over)",
  "sum.title": "a hand's number (Hand 3 is over)",
  "review.handN": "a hand's number (Hand 3)",
  "review.handStart": "a hand's number (Hand 3: the deal)",
  "review.handPoints": "a hand's number; {points} is a list of each player's points",
  "review.costlyHand": "a hand's number (costly plays in hand 3)",
  "review.chartTitle": "a hand's number (through hand 3)",
  "review.chartLabel": "a hand's number, and a total figure with no noun after it (2.10 in all)",
  "review.trickN": "a trick's number (Trick 4)",
  "review.markItem": "a trick's number, and a loss figure with no noun after it ((mistake, 0.80 lost))",
  "last.empty": "a trick's number (Trick 4: empty)",
  "last.won": "a trick's number (Trick 4: won by Ann)",
  "last.won.you": "a trick's number (Trick 4: won by you)",
  "ordinal.one": "an ordinal place, chosen by the ordinal rules (ordinal())",
  "ordinal.two": "an ordinal place, chosen by the ordinal rules (ordinal())",
  "ordinal.few": "an ordinal place, chosen by the ordinal rules (ordinal())",
  "ordinal.other": "an ordinal place, chosen by the ordinal rules (ordinal())",
  "hint.cardValue": "a figure with its label before it (hint 1.80), no noun after it",
  "history.ratingPoint": "ratings and their change, figures with no noun",
  "quick.countdown": "seconds as the unit symbol s, the same for every number",
  "quick.countdownOne": "seconds as the unit symbol s, the same for every number",
  "card.name": "{rank} is a card's rank (Queen of spades), not a number",
  "tip.seatLocks": "{locked} and {lost} are count.times and count.lost, plural themselves",
  "tip.seatLocks.you": "{locked} and {lost} are count.times and count.lost, plural themselves",
};

/** Placeholders that hold a number (or a phrase with one). */
const NUMERIC = ["n", "num", "count", "total", "target", "value", "loss", "min", "games", "cards", "rank", "trick", "tricks", "more", "seconds", "locked", "lost", "before", "after", "change", "points"];

const PLURAL = /^(.*)_(zero|one|two|few|many|other|=\d+)$/;
/** @param {string} text */
const placeholders = (text) => [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))];

test("every plural family of the catalogue is in the table, and every number is plural or listed with a reason", () => {
  const families = new Set(Object.keys(EN).filter((k) => PLURAL.test(k) && !k.startsWith("ordinal.")).map((k) => /** @type {RegExpExecArray} */ (PLURAL.exec(k))[1]));
  assert.deepEqual([...families].filter((f) => !(f in FAMILIES)).sort(), [], "count messages without expected forms here");
  assert.deepEqual(Object.keys(FAMILIES).filter((f) => !families.has(f)).sort(), [], "expected forms of messages that are gone or not plural");
  const escaped = Object.entries(EN)
    .filter(([k, v]) => !PLURAL.test(k) && !k.startsWith("date.") && !k.startsWith("num.") && placeholders(v).some((p) => NUMERIC.includes(p)))
    .map(([k]) => k)
    .filter((k) => !(k in NOT_PLURAL));
  assert.deepEqual(escaped.sort(), [], "messages with a number that escape the plural rules");
  assert.deepEqual(Object.keys(NOT_PLURAL).filter((k) => !(k in EN)).sort(), [], "listed as not plural but not in the catalogue");
  for (const lang of LANGS) {
    const words = load(lang);
    for (const k of Object.keys(NOT_PLURAL)) if (!k.startsWith("ordinal.")) assert.ok(!(`${k}_other` in words), `${lang}: ${k} is plural after all`);
  }
});

/** @param {string} s */
const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * Whether text holds the fragment as words: no letter glued before or after it (so
 * "1 stigaleik" does not pass for "1 stigaleiki"), where the fragment begins or ends with one.
 * @param {string} text @param {string} fragment
 */
function holds(text, fragment) {
  const before = /^\p{L}/u.test(fragment) ? "(?<!\\p{L})" : "";
  const after = /\p{L}$/u.test(fragment) ? "(?!\\p{L})" : "";
  return new RegExp(`${before}${escapeRe(fragment)}${after}`, "u").test(text);
}

/** @type {typeof import("../../lockup/web/static/js/i18n.js")} */
let i18n;

async function loadI18n() {
  if (i18n) return i18n;
  globalThis.fetch = /** @type {any} */ (
    async (/** @type {string} */ url) => ({ ok: true, json: async () => load(url.replace(/^.*\/i18n\//, "").replace(".json", "")) })
  );
  globalThis.document = /** @type {any} */ ({ documentElement: {} });
  i18n = await import("../../lockup/web/static/js/i18n.js");
  return i18n;
}

/** Render every family for every count in every language and check the forms; returns what was checked. */
async function checkAllCounts() {
  const { setLanguage, t } = await loadI18n();
  let checked = 0;
  for (const lang of LANGS) {
    await setLanguage(lang, { save: false });
    for (const [key, family] of Object.entries(FAMILIES)) {
      for (const n of COUNTS) {
        const text = t(key, { ...PARAMS, n });
        const cat = CATEGORY[lang][n];
        const exact = n === 1 ? family.exact?.[lang] : undefined;
        const forms = exact ?? family[/** @type {"en" | "fr" | "is"} */ (lang)][cat === "one" ? 0 : 1];
        for (const f of [forms].flat()) {
          const want = f.replaceAll("{n}", String(n));
          assert.ok(holds(text, want), `${lang} ${key} n=${n} (${exact ? "exactly 1" : cat}): "${text}" should say "${want}"`);
        }
        assert.ok(!/\{\w+\}/.test(text), `${lang} ${key} n=${n}: a placeholder is left: ${text}`);
        checked += 1;
      }
    }
  }
  return checked;
}

test("every count message in en, fr and is, for 0, 1, 2, 5, 21 and 101, by the browser's plural rules", async () => {
  const checked = await checkAllCounts();
  assert.equal(checked, Object.keys(FAMILIES).length * COUNTS.length * LANGS.length);
});

test("the same forms by i18n.js's own CLDR rules, where the browser has no plural rules for the language", async () => {
  const real = Intl.PluralRules.supportedLocalesOf;
  Intl.PluralRules.supportedLocalesOf = () => [];
  try {
    const { intlKnows } = await loadI18n();
    assert.equal(intlKnows("PluralRules", "is"), false);
    await checkAllCounts();
  } finally {
    Intl.PluralRules.supportedLocalesOf = real;
  }
});

// Expected tricks are counted with two decimals: English says "1.00 expected tricks";
// French is singular below 2 ("1,50 pli espéré"); Icelandic goes by the last digit shown
// ("2,10 væntanlegur slagur", "0,50 væntanlegir slagir").
const DECIMALS = /** @type {Record<string, [number, string, "one" | "other"][]>} */ ({
  en: [[0.5, "0.50", "other"], [1, "1.00", "other"], [1.5, "1.50", "other"], [2.1, "2.10", "other"], [0.41, "0.41", "other"]],
  fr: [[0.5, "0,50", "one"], [1, "1,00", "one"], [1.5, "1,50", "one"], [2.1, "2,10", "other"], [0.41, "0,41", "one"]],
  is: [[0.5, "0,50", "other"], [1, "1,00", "one"], [1.5, "1,50", "other"], [2.1, "2,10", "one"], [0.41, "0,41", "one"], [0.11, "0,11", "other"], [21, "21,00", "one"]],
});

for (const rules of ["the browser's", "i18n.js's own"]) {
  test(`expected tricks with two decimals take the right form, by ${rules} plural rules`, async () => {
    const { setLanguage, t } = await loadI18n();
    const real = Intl.PluralRules.supportedLocalesOf;
    if (rules !== "the browser's") Intl.PluralRules.supportedLocalesOf = () => [];
    try {
      for (const lang of LANGS) {
        await setLanguage(lang, { save: false });
        for (const [x, shown, cat] of DECIMALS[lang]) {
          for (const key of ["review.cardValue", "review.verdictSmall", "review.verdict.mistake"]) {
            const text = t(key, { ...PARAMS, n: x, digits: 2 });
            const f = FAMILIES[key][/** @type {"en" | "fr" | "is"} */ (lang)][cat === "one" ? 0 : 1];
            const want = /** @type {string} */ (f).replace("{n}", shown);
            assert.ok(holds(text, want), `${lang} ${key} ${shown}: "${text}" should say "${want}"`);
          }
        }
      }
    } finally {
      Intl.PluralRules.supportedLocalesOf = real;
    }
  });
}

test("i18n.js's CLDR rules agree with the browser's (ICU) on every count to 10 000 and on decimals", async () => {
  const { CLDR_PLURALS, plural } = await loadI18n();
  const real = Intl.PluralRules.supportedLocalesOf;
  for (const lang of LANGS) {
    for (const type of /** @type {const} */ (["cardinal", "ordinal"])) {
      const icu = new Intl.PluralRules(lang, { type });
      Intl.PluralRules.supportedLocalesOf = () => [];
      try {
        for (let n = 0; n <= 10000; n++) assert.equal(plural(n, { type, lang }), icu.select(n), `${lang} ${type} ${n}`);
        if (type === "cardinal") {
          for (const digits of [1, 2]) {
            const icuD = new Intl.PluralRules(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits });
            for (let k = 0; k <= 3000; k++) {
              const x = k / 100;
              assert.equal(plural(x, { digits, lang }), icuD.select(x), `${lang} ${x} with ${digits} decimals`);
            }
          }
        }
      } finally {
        Intl.PluralRules.supportedLocalesOf = real;
      }
    }
    assert.ok(CLDR_PLURALS[lang]);
  }
  // French's "many" (round millions) is said with "_other".
  Intl.PluralRules.supportedLocalesOf = () => [];
  try {
    assert.equal(plural(1000000, { lang: "fr" }), "many");
    const { setLanguage, t } = await loadI18n();
    await setLanguage("fr", { save: false });
    assert.equal(t("seat.tricksShort", { n: 1000000 }), "1\u202f000\u202f000 plis");
  } finally {
    Intl.PluralRules.supportedLocalesOf = real;
  }
});
