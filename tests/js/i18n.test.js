// Every language of the page (lockup/web/static/i18n/*.json) says everything English says:
// exactly en.json's keys, except the plural and ordinal variants, which each language has
// for exactly the categories its Intl.PluralRules gives the counts 0 to 10 000 (and, where
// it wants one, a "_=1" variant for exactly 1: "avec un trèfle"); no empty message; the
// same {placeholders} as English (an exact variant may leave the number out; the date
// patterns use the parts their language needs). And t() picks Icelandic plurals as
// Intl.PluralRules("is") does (1, 21, 31 singular; 11 plural). The count messages in every
// language are checked form by form in plurals.test.js. Run with `node --test tests/js/`.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const DIR = fileURLToPath(new URL("../../lockup/web/static/i18n/", import.meta.url));
const load = (/** @type {string} */ lang) => JSON.parse(readFileSync(`${DIR}${lang}.json`, "utf-8"));
const EN = load("en");
const FILES = readdirSync(DIR).filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -5));

const PLURAL = /^(.*)_(zero|one|two|few|many|other)$/;
const EXACT = /^(.*)_=(\d+)$/;
/** The parts a date pattern (date.*) may use: i18n.js fills them. */
const DATE_PARTS = ["d", "MMM", "y", "H", "HH", "h", "mm", "a", "date", "time"];
/** Messages that are a separator, all space in some language (French groups digits with a narrow space). */
const SPACES = ["num.group"];
const ORDINAL = /^ordinal\.(zero|one|two|few|many|other)$/;

/**
 * The plural categories the counts a page shows (0 to 10 000) fall into in lang: French's
 * "many" (a million) is left to "_other", which t() falls back to.
 * @param {string} lang @param {"cardinal" | "ordinal"} type
 */
function categories(lang, type) {
  const rules = new Intl.PluralRules(lang, { type });
  const seen = new Set();
  for (let n = 0; n <= 10000; n++) seen.add(rules.select(n));
  return [...seen];
}

/** Whether the plural category "one" holds the number 1 alone in lang (English: yes; French: 0 and 1). @param {string} lang */
function onlyOne(lang) {
  const rules = new Intl.PluralRules(lang);
  for (let n = 0; n <= 10000; n++) if (n !== 1 && rules.select(n) === "one") return false;
  return true;
}

/** The keys a language must have: en.json's, with plural and ordinal variants by its own rules. @param {string} lang */
function expectedKeys(lang) {
  const cardinal = categories(lang, "cardinal");
  const ordinal = categories(lang, "ordinal");
  const keys = new Set();
  for (const key of Object.keys(EN)) {
    if (EXACT.test(key)) continue;
    const p = PLURAL.exec(key);
    if (ORDINAL.test(key)) for (const c of ordinal) keys.add(`ordinal.${c}`);
    else if (p) for (const c of cardinal) keys.add(`${p[1]}_${c}`);
    else keys.add(key);
  }
  return keys;
}

/** @param {string} text */
const placeholders = (text) => [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort();

/** English's message for a key, or for its plural or ordinal family. @param {string} key */
function english(key) {
  if (key in EN) return EN[key];
  if (ORDINAL.test(key)) return EN["ordinal.other"];
  const e = EXACT.exec(key);
  if (e) return EN[`${e[1]}_other`];
  const p = PLURAL.exec(key);
  return p ? EN[`${p[1]}_other`] : undefined;
}

test("the page has English, French and Icelandic", () => {
  assert.deepEqual([...FILES].sort(), ["en", "fr", "is"]);
  for (const lang of FILES) assert.equal(typeof EN[`lang.${lang}`], "string");
});

test("Icelandic plurals: one (1, 21, 31, 101) and other (0, 2, 11, 111)", () => {
  const r = new Intl.PluralRules("is");
  assert.deepEqual([...r.resolvedOptions().pluralCategories].sort(), ["one", "other"]);
  assert.deepEqual([1, 21, 31, 101].map((n) => r.select(n)), ["one", "one", "one", "one"]);
  assert.deepEqual([0, 2, 11, 111].map((n) => r.select(n)), ["other", "other", "other", "other"]);
  assert.deepEqual(new Intl.PluralRules("is", { type: "ordinal" }).resolvedOptions().pluralCategories, ["other"]);
});

for (const lang of FILES) {
  test(`${lang}.json: exactly the keys it needs, none empty, English's placeholders`, () => {
    const messages = load(lang);
    const want = expectedKeys(lang);
    const have = new Set(Object.keys(messages));
    assert.deepEqual([...want].filter((k) => !have.has(k)).sort(), [], `${lang} lacks these`);
    // An exact variant ("_=1") belongs to a plural family of English's.
    const exact = (/** @type {string} */ k) => EXACT.test(k) && `${EXACT.exec(k)?.[1]}_other` in EN;
    assert.deepEqual([...have].filter((k) => !want.has(k) && !exact(k)).sort(), [], `${lang} has these that English does not`);
    for (const [key, text] of Object.entries(messages)) {
      assert.equal(typeof text, "string", key);
      assert.ok(text.trim() !== "" || (SPACES.includes(key) && text !== ""), `${lang} ${key} is empty`);
      const en = english(key);
      assert.ok(en !== undefined, key);
      if (key.startsWith("date.")) {
        assert.deepEqual(placeholders(text).filter((p) => !DATE_PARTS.includes(p)), [], `${lang} ${key}: ${text}`);
      } else if (EXACT.test(key) || PLURAL.test(key)) {
        // A plural variant has English's placeholders; it may leave the number out only where
        // it is said of exactly one number ("_=1", or "_one" in a language where one is 1 alone).
        const family = /** @type {RegExpExecArray} */ (EXACT.exec(key) ?? PLURAL.exec(key))[1];
        const others = (/** @type {string} */ t) => placeholders(t).filter((p) => p !== "n");
        assert.deepEqual(others(text), others(EN[`${family}_other`]), `${lang} ${key}: ${text}`);
        const single = EXACT.test(key) || (key.endsWith("_one") && onlyOne(lang));
        if (!single && placeholders(EN[`${family}_other`]).includes("n")) assert.ok(placeholders(text).includes("n"), `${lang} ${key} says no number: ${text}`);
      } else {
        assert.deepEqual(placeholders(text), placeholders(en), `${lang} ${key}: ${text}`);
      }
    }
  });
}

test("t() in Icelandic: plurals by Intl.PluralRules, ordinals, lists and numbers", async () => {
  globalThis.fetch = /** @type {any} */ (
    async (/** @type {string} */ url) => ({ ok: true, json: async () => load(url.replace(/^.*\/i18n\//, "").replace(".json", "")) })
  );
  globalThis.document = /** @type {any} */ ({ documentElement: {} });
  const i18n = await import("../../lockup/web/static/js/i18n.js");
  assert.deepEqual(i18n.LANGS, ["en", "fr", "is"]);
  assert.deepEqual(i18n.LANG_NAMES, { en: "English", fr: "Français", is: "Íslenska" });
  await i18n.setLanguage("is", { save: false });
  assert.equal(i18n.language(), "is");
  assert.equal(i18n.t("seat.tricksShort", { n: 1 }), "1 slagur");
  assert.equal(i18n.t("seat.tricksShort", { n: 21 }), "21 slagur");
  assert.equal(i18n.t("seat.tricksShort", { n: 11 }), "11 slagir");
  assert.equal(i18n.t("seat.tricksShort", { n: 2 }), "2 slagir");
  assert.equal(i18n.t("room.seconds", { n: 31 }), "31 sekúnda");
  assert.equal(i18n.t("room.seconds", { n: 5 }), "5 sekúndur");
  assert.equal(i18n.ordinal(2), "2.");
  assert.equal(i18n.orList(["a", "b", "c"]), "a, b eða c");
  assert.equal(i18n.formatNumber(3.07), "3,07");
  assert.equal(i18n.formatNumber(-3.3, 1), "−3,3");
  // Exactly one: the "_=1" variant where the language has one; 21 is singular but a number.
  assert.equal(i18n.t("ann.trickLock", { n: 1, name: "Ann" }), "Ann fær slaginn með laufi og situr hjá í næsta slag.");
  assert.equal(i18n.t("ann.trickLock", { n: 21, name: "Ann" }), "Ann fær slaginn með 21 laufi og situr hjá í 21 slag.");
  assert.match(i18n.t("lb.yours", { n: 1001, rating: i18n.formatNumber(-3.3, 1), rank: 2 }), /: −3,3, .* 2, eftir 1\.001 stigaleik\.$/);
  assert.equal(i18n.t("card.name", { rank: i18n.t("rank.Q"), suit: i18n.t("suit.S") }), "Spaðadrottning");
  await i18n.setLanguage("en", { save: false });
  assert.equal(i18n.t("seat.tricksShort", { n: 21 }), "21 tricks");
});
