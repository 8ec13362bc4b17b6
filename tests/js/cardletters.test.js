// One set of card letters per language, on the faces and in every sentence: English J Q K A,
// French V D R A (valet, dame, roi), Icelandic G D K Á (gosi, drottning, kóngur, ás), as
// Icelandic bridge writes them. The page's catalogue (index.*) draws the faces and the short
// cards ("G♣"), the refusal catalogue (lockup/refusals.py) writes the cards a refusal offers:
// both must give the same letters, and a face, the hint's short card and a refusal agree.
// Python (LOCKUP_PYTHON, else .venv/bin/python, else python3) gives the refusal catalogue.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { RANKS, cardShort, faceSVG, miniSVG } from "../../lockup/web/static/js/cards.js";
import { formatRefusal } from "../../lockup/web/static/js/refusals.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const VENV_PYTHON = `${ROOT}.venv/bin/python`;
const PYTHON = process.env.LOCKUP_PYTHON || (existsSync(VENV_PYTHON) ? VENV_PYTHON : "python3");
const CATALOGUE = JSON.parse(
  execFileSync(PYTHON, ["-c", "import json; from lockup.refusals import catalogue; print(json.dumps(catalogue()))"], { cwd: ROOT, encoding: "utf-8" }),
);
const load = (/** @type {string} */ lang) => JSON.parse(readFileSync(`${ROOT}lockup/web/static/i18n/${lang}.json`, "utf-8"));

/** The letters a player of each language expects on a court card and an ace. */
const COURTS = { en: "J Q K A", fr: "V D R A", is: "G D K Á" };

for (const lang of /** @type {const} */ (["en", "fr", "is"])) {
  test(`${lang}: the faces, the short cards and the refusals use the same letters (${COURTS[lang]})`, () => {
    const words = load(lang);
    const t = (/** @type {string} */ key) => words[key] ?? key;
    const page = Object.fromEntries([...RANKS].map((r) => [r, words[`index.${r}`]]));
    assert.deepEqual(page, CATALOGUE[lang].words.index, "the page's index.* and the refusal catalogue's index");
    assert.equal(["J", "Q", "K", "A"].map((r) => page[r]).join(" "), COURTS[lang]);
    const jack = page.J;
    // The face of the jack of clubs, its small card and its short form all say the letter.
    assert.match(faceSVG("JC", t("index.J")), new RegExp(`>${jack}</text>`));
    assert.match(miniSVG("JC", t("index.J")), new RegExp(`>${jack}</text>`));
    assert.equal(cardShort("JC", t), `${jack}♣`);
    // A refusal offering the picture exception's clubs names them with the same letters.
    const text = formatRefusal(lang, "picture-rank", { cards: ["JC", "QC"] }, { catalogue: CATALOGUE });
    assert.ok(text?.includes(`${jack}♣`) && text.includes(`${page.Q}♣`), `${lang}: ${text}`);
    // And the card's name says the same rank: gosi, valet, jack.
    const name = { en: "Jack", fr: "Valet", is: "gosi" }[lang];
    assert.equal(words["rank.J"], name);
  });
}
