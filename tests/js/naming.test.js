// People named inside a sentence (lockup/web/static/js/naming.js), in English, French and
// Icelandic: lists that read as lists, the rematch line that never calls the reader "You"
// inside a list ("waiting for You, Tumi") and says "you" in each language's own place and
// person, and a history entry's opponents by name and level. Run with `node --test tests/js/`.

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
const { andList, opponentsText, rematchAwaited } = await import("../../lockup/web/static/js/naming.js");

/** What the rematch line says, for (others awaited, the reader awaited too). */
const REMATCH = {
  en: [
    [[], true, "Rematch: waiting for you"],
    [["Tumi"], false, "Rematch: waiting for Tumi"],
    [["Tumi"], true, "Rematch: waiting for Tumi and you"],
    [["Tumi", "Kári"], false, "Rematch: waiting for Tumi and Kári"],
    [["Tumi", "Kári"], true, "Rematch: waiting for Tumi, Kári and you"],
    [["Tumi", "Kári", "Sunna"], false, "Rematch: waiting for Tumi, Kári and Sunna"],
  ],
  fr: [
    [[], true, "Revanche : vous n'avez pas encore répondu"],
    [["Tumi"], false, "Revanche : Tumi n'a pas encore répondu"],
    [["Tumi"], true, "Revanche : Tumi et vous n'avez pas encore répondu"],
    [["Tumi", "Kári"], false, "Revanche : Tumi et Kári n'ont pas encore répondu"],
    [["Tumi", "Kári"], true, "Revanche : Tumi, Kári et vous n'avez pas encore répondu"],
  ],
  is: [
    [[], true, "Annar leikur: þú átt eftir að svara"],
    [["Tumi"], false, "Annar leikur: Tumi á eftir að svara"],
    [["Tumi"], true, "Annar leikur: Tumi og þú eigið eftir að svara"],
    [["Tumi", "Kári"], false, "Annar leikur: Tumi og Kári eiga eftir að svara"],
    [["Tumi", "Kári"], true, "Annar leikur: Tumi, Kári og þú eigið eftir að svara"],
  ],
};

test("the rematch line names the others and says 'you' in the reader's language", async () => {
  for (const [lang, cases] of Object.entries(REMATCH)) {
    await i18n.setLanguage(lang, { save: false });
    const you = i18n.t("you"); // "You", "Vous", "Þú": a label, never inside the sentence
    for (const [others, me, want] of /** @type {[string[], boolean, string][]} */ (cases)) {
      const text = rematchAwaited(others, me);
      assert.equal(text, want, `${lang} ${JSON.stringify(others)} ${me}`);
      assert.ok(!text.includes(you), `${lang}: "${text}" holds the label "${you}"`);
    }
    assert.equal(rematchAwaited([], false), "");
  }
});

test("lists read as lists in every language", async () => {
  const want = { en: "Ann, Bo and Cy", fr: "Ann, Bo et Cy", is: "Ann, Bo og Cy" };
  for (const [lang, text] of Object.entries(want)) {
    await i18n.setLanguage(lang, { save: false });
    assert.equal(andList(["Ann", "Bo", "Cy"]), text);
    assert.equal(andList(["Ann"]), "Ann");
    assert.equal(andList([]), "");
  }
});

test("a history entry's opponents: people by name, computers by level, no lowercase 'person'", async () => {
  const bot = (/** @type {string} */ level) => ({ kind: "bot", level });
  const human = { kind: "human", level: null };
  const friends = [human, human, bot("random"), bot("random")];
  const players = ["Ragna", "Tumi", "Leifur", "Vigdís"];
  const want = {
    en: ["Tumi · Random (practice)\u00a0×2", "Random (practice)\u00a0×3", "Tumi, Leifur and Vigdís", "Expert, Normal\u00a0×2", "Person · Easy\u00a0×2"],
    fr: ["Tumi · Au hasard (entraînement)\u00a0×2", "Au hasard (entraînement)\u00a0×3", "Tumi, Leifur et Vigdís", "Expert, Normal\u00a0×2", "Joueur · Facile\u00a0×2"],
    is: ["Tumi · Handahóf (æfing)\u00a0×2", "Handahóf (æfing)\u00a0×3", "Tumi, Leifur og Vigdís", "Sérfræðingur, Venjulegt\u00a0×2", "Manneskja · Auðvelt\u00a0×2"],
  };
  for (const [lang, texts] of Object.entries(want)) {
    await i18n.setLanguage(lang, { save: false });
    const got = [
      opponentsText(friends, players, 0),
      opponentsText([human, bot("random"), bot("random"), bot("random")], players, 0),
      opponentsText([human, human, human, human], players, 0),
      opponentsText([bot("expert"), human, bot("normal"), bot("normal")], players, 1),
      opponentsText([human, human, bot("easy"), bot("easy")], ["Ragna", "", "Leifur", "Vigdís"], 0),
    ];
    assert.deepEqual(got, texts, lang);
    for (const text of got) assert.ok(!text.includes(i18n.t("history.person").toLowerCase()), `${lang}: ${text}`);
  }
});
