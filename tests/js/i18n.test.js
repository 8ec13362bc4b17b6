// Every language of the page (lockup/web/static/i18n/*.json) says everything English says:
// exactly en.json's keys, except the plural and ordinal variants, which each language has
// for exactly the categories its Intl.PluralRules gives the counts 0 to 10 000; no empty message; the same
// {placeholders} as English. And t() picks Icelandic plurals as Intl.PluralRules("is")
// does (1, 21, 31 singular; 11 plural). Run with `node --test tests/js/`.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const DIR = fileURLToPath(new URL("../../lockup/web/static/i18n/", import.meta.url));
const load = (/** @type {string} */ lang) => JSON.parse(readFileSync(`${DIR}${lang}.json`, "utf-8"));
const EN = load("en");
const FILES = readdirSync(DIR).filter((f) => f.endsWith(".json")).map((f) => f.slice(0, -5));

const PLURAL = /^(.*)_(zero|one|two|few|many|other)$/;
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

/** The keys a language must have: en.json's, with plural and ordinal variants by its own rules. @param {string} lang */
function expectedKeys(lang) {
  const cardinal = categories(lang, "cardinal");
  const ordinal = categories(lang, "ordinal");
  const keys = new Set();
  for (const key of Object.keys(EN)) {
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
    assert.deepEqual([...have].filter((k) => !want.has(k)).sort(), [], `${lang} has these that English does not`);
    for (const [key, text] of Object.entries(messages)) {
      assert.equal(typeof text, "string", key);
      assert.ok(text.trim() !== "", `${lang} ${key} is empty`);
      const en = english(key);
      assert.ok(en !== undefined, key);
      assert.deepEqual(placeholders(text), placeholders(en), `${lang} ${key}: ${text}`);
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
  assert.equal(i18n.t("card.name", { rank: i18n.t("rank.Q"), suit: i18n.t("suit.S") }), "Spaðadrottning");
  await i18n.setLanguage("en", { save: false });
  assert.equal(i18n.t("seat.tricksShort", { n: 21 }), "21 tricks");
});
