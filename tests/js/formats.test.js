// Numbers, dates and lists in the page's language on every browser (lockup/web/static/js/i18n.js):
// Debian's Chromium has no Icelandic number, date or list data (Intl.NumberFormat("is")
// writes "-3.3", DateTimeFormat("is") "Dec 6, 2026, 4:11 AM", ListFormat("is") "a, b, or c").
// Here Intl's data is taken away (supportedLocalesOf answers nothing), as there, and the
// page must still write Icelandic and French from the catalogue: "1,8", "−3,3", "6. des.
// 2026, 04:11", "a, b eða c". Where Node's full ICU has the language it is the oracle: the
// catalogue's forms must be ICU's (the page's one minus aside). Run with `node --test tests/js/`.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const DIR = fileURLToPath(new URL("../../lockup/web/static/i18n/", import.meta.url));
const load = (/** @type {string} */ lang) => JSON.parse(readFileSync(`${DIR}${lang}.json`, "utf-8"));

globalThis.fetch = /** @type {any} */ (
  async (/** @type {string} */ url) => ({ ok: true, json: async () => load(url.replace(/^.*\/i18n\//, "").replace(".json", "")) })
);
globalThis.document = /** @type {any} */ ({ documentElement: {} });
const i18n = await import("../../lockup/web/static/js/i18n.js");

const SERVICES = /** @type {const} */ (["NumberFormat", "DateTimeFormat", "ListFormat", "PluralRules"]);

/**
 * Run fn as on a browser whose Intl has no data for the languages in `missing`.
 * @param {string[]} missing @param {() => Promise<void> | void} fn
 */
async function withoutIntl(missing, fn) {
  const real = SERVICES.map((s) => Intl[s].supportedLocalesOf);
  for (const [i, s] of SERVICES.entries()) {
    Intl[s].supportedLocalesOf = /** @type {any} */ ((/** @type {string[]} */ locales, /** @type {any} */ o) => real[i].call(Intl[s], locales, o).filter((l) => !missing.includes(l.slice(0, 2))));
  }
  try {
    await fn();
  } finally {
    for (const [i, s] of SERVICES.entries()) Intl[s].supportedLocalesOf = real[i];
  }
}

/** ICU's own writing of a number in a language, with the page's minus. @param {string} lang @param {number} x @param {Intl.NumberFormatOptions} o */
const icu = (lang, x, o) => new Intl.NumberFormat(lang, o).format(x).replace("-", "−");

test("Icelandic without Intl's data: hint figures, ratings, big numbers, percentages, dates and lists", async () => {
  await i18n.setLanguage("is", { save: false });
  await withoutIntl(["is"], () => {
    assert.equal(i18n.intlKnows("NumberFormat", "is"), false);
    assert.equal(i18n.formatNumber(1.8, 2), "1,80");
    assert.equal(i18n.formatNumber(1.8, 1), "1,8");
    assert.equal(i18n.formatNumber(-3.3, 1), "−3,3");
    assert.equal(i18n.formatNumber(3.07), "3,07");
    assert.equal(i18n.formatNumber(1234567.891, 2), "1.234.567,89");
    assert.equal(i18n.formatNumber(1.005, 2), "1,01");
    assert.equal(i18n.formatNumber(-0.04, 1), "−0,0");
    assert.equal(i18n.formatNumber(2.5, 0), "3");
    assert.equal(i18n.formatNumber(0.5, 0, { max: 2 }), "0,5");
    assert.equal(i18n.formatPercent(87.5), "87,5%");
    assert.equal(i18n.formatPercent(100), "100%");
    const when = new Date(2026, 11, 6, 4, 11);
    assert.equal(i18n.formatDate(when), "6. des. 2026");
    assert.equal(i18n.formatDateTime(when), "6. des. 2026, 04:11");
    assert.equal(i18n.formatDateTime(new Date(2026, 4, 17, 16, 5)), "17. maí 2026, 16:05");
    assert.equal(i18n.formatDayMonth(when), "6. des.");
    assert.equal(i18n.formatDateTime(when.toISOString()), "6. des. 2026, 04:11");
    assert.equal(i18n.orList(["a", "b", "c"]), "a, b eða c");
    assert.equal(i18n.orList(["a", "b"]), "a eða b");
    assert.equal(i18n.orList(["a"]), "a");
    assert.equal(i18n.orList([]), "");
    // Numbers inside messages, and their plural, by the same forms.
    assert.equal(i18n.t("seat.tricksShort", { n: 1021 }), "1.021 slagur");
    assert.equal(i18n.t("review.cardValue", { n: 2.1, digits: 2 }), "2,10 væntanlegur slagur");
    assert.equal(i18n.ordinal(3), "3.");
  });
});

test("French without Intl's data: the same forms as French ICU writes", async () => {
  await i18n.setLanguage("fr", { save: false });
  await withoutIntl(["fr"], () => {
    assert.equal(i18n.formatNumber(1.8, 1), "1,8");
    assert.equal(i18n.formatNumber(-3.3, 1), "−3,3");
    assert.equal(i18n.formatNumber(1234.5, 1), "1\u202f234,5");
    assert.equal(i18n.formatPercent(87.5).replace(/\s/g, " "), "87,5 %");
    const when = new Date(2026, 11, 6, 4, 11);
    assert.equal(i18n.formatDate(when), "6 déc. 2026");
    assert.equal(i18n.formatDateTime(when), "6 déc. 2026, 04:11");
    assert.equal(i18n.formatDayMonth(new Date(2026, 1, 28)), "28 févr.");
    assert.equal(i18n.orList(["a", "b", "c"]), "a, b ou c");
    assert.equal(i18n.t("seat.tricksShort", { n: 0 }), "0 pli");
    assert.equal(i18n.ordinal(1), "1er");
    assert.equal(i18n.ordinal(2), "2e");
  });
});

test("without Intl's data, the catalogue writes what ICU writes: numbers, percentages, every month and hour", async () => {
  const numbers = [0, 1, -1, 0.5, -0.5, 1.25, 1.005, 2.675, 9.995, 12.3456, 999.995, 1000, 1234.5, -98765.4321, 1e6, 123456789.5, 0.001, -0.04];
  for (const lang of ["fr", "is"]) {
    await i18n.setLanguage(lang, { save: false });
    // ICU's answers first, with its data.
    const want = numbers.flatMap((x) => [0, 1, 2].map((d) => icu(lang, x, { minimumFractionDigits: d, maximumFractionDigits: d })));
    const wantMax = numbers.map((x) => icu(lang, x, { maximumFractionDigits: 2 }));
    const wantPct = [0, 12.5, 33.333, 87.55, 100].map((x) => icu(lang, x / 100, { style: "percent", maximumFractionDigits: 1 }));
    const dates = [];
    for (let m = 0; m < 12; m++) for (const h of [0, 4, 11, 12, 13, 23]) dates.push(new Date(2026, m, 1 + 2 * m, h, 7 * m));
    const fmt = (/** @type {Intl.DateTimeFormatOptions} */ o) => dates.map((d) => new Intl.DateTimeFormat(lang, o).format(d));
    const wantDates = [fmt({ dateStyle: "medium" }), fmt({ dateStyle: "medium", timeStyle: "short" }), fmt({ day: "numeric", month: "short" })];
    await withoutIntl([lang], () => {
      assert.deepEqual(
        numbers.flatMap((x) => [0, 1, 2].map((d) => i18n.formatNumber(x, d))),
        want,
      );
      assert.deepEqual(numbers.map((x) => i18n.formatNumber(x, 0, { max: 2 })), wantMax);
      assert.deepEqual([0, 12.5, 33.333, 87.55, 100].map((x) => i18n.formatPercent(x)), wantPct);
      assert.deepEqual([dates.map(i18n.formatDate), dates.map(i18n.formatDateTime), dates.map(i18n.formatDayMonth)], wantDates);
    });
  }
});

test("with Intl's data: Intl's forms, and one minus on the page", async () => {
  await i18n.setLanguage("en", { save: false });
  assert.equal(i18n.formatNumber(-3.3, 1), "−3.3");
  assert.equal(i18n.formatNumber(1234.5, 1), "1,234.5");
  assert.equal(i18n.formatDateTime(new Date(2026, 11, 6, 4, 11)).replace(/\s/g, " "), "Dec 6, 2026, 4:11 AM");
  await i18n.setLanguage("is", { save: false });
  assert.equal(i18n.intlKnows("NumberFormat", "is"), true);
  assert.equal(i18n.formatNumber(-3.3, 1), "−3,3");
  assert.equal(i18n.formatDateTime(new Date(2026, 11, 6, 4, 11)), "6. des. 2026, 04:11");
  // Another language than the page's is written by Intl (the review's formatAccuracy(x, lang)).
  assert.equal(i18n.formatNumber(2.1, 2, { lang: "fr" }), "2,10");
});
