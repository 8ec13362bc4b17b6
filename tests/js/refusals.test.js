// The page's refusals come from the one catalogue (lockup/refusals.py, GET /api/refusals):
// js/refusals.js formats every example exactly as the Python module does, and the table's
// refusalText turns an error frame into the catalogue's words in English and French.
// Python (LOCKUP_PYTHON, else .venv/bin/python, else python3) gives the catalogue.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { formatRefusal } from "../../lockup/web/static/js/refusals.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const VENV_PYTHON = `${ROOT}.venv/bin/python`;
const PYTHON = process.env.LOCKUP_PYTHON || (existsSync(VENV_PYTHON) ? VENV_PYTHON : "python3");
const NAMES = ["Ann", "Bo", "Cy", "Di"];

const SCRIPT = `
import json
from lockup.refusals import LANGS, catalogue, examples, message
names = ${JSON.stringify(NAMES)}
cases = []
for lang in LANGS:
    for code, params in examples() + [("discard-due", {"seat": 2})]:
        for kw in ({}, {"names": names, "viewer": 2}):
            text = message(code, params, lang, **kw)
            cases.append({"lang": lang, "code": code, "params": params, **kw, "text": text})
print(json.dumps({"catalogue": catalogue(), "cases": cases}))
`;

const DATA = JSON.parse(execFileSync(PYTHON, ["-c", SCRIPT], { cwd: ROOT, encoding: "utf-8" }));

test("every example reads as the Python catalogue says, in both languages", () => {
  assert.ok(DATA.cases.length > 50);
  for (const c of DATA.cases) {
    const opts = { catalogue: DATA.catalogue, names: c.names ?? null, viewer: c.viewer ?? null };
    assert.equal(formatRefusal(c.lang, c.code, c.params, opts), c.text, JSON.stringify(c));
  }
  assert.equal(formatRefusal("en", "stale", {}, { catalogue: DATA.catalogue }), null);
});

test("the table words an error frame from the catalogue, in English and French", async () => {
  // The page's fetches, served from the repository and the Python catalogue.
  globalThis.fetch = /** @type {any} */ (
    async (/** @type {string} */ url) => {
      const body = url === "/api/refusals" ? DATA.catalogue : JSON.parse(readFileSync(`${ROOT}lockup/web/static${url.replace("/static", "")}`, "utf-8"));
      return { ok: true, json: async () => body };
    }
  );
  globalThis.document = /** @type {any} */ ({ documentElement: {} });
  const i18n = await import("../../lockup/web/static/js/i18n.js");
  const text = await import("../../lockup/web/static/js/text.js");
  assert.equal(await text.refusalsLoaded, true);
  const s = { seat: 0, players: ["You", "Þóra", "Leifur", "Vigdís"], middle: [{ seat: 1, card: "KS" }, { seat: 2, card: "KC" }] };
  const frame = (code, params, reason = "") => ({ type: "error", code, rule: "R6", reason, params, version: 3 });
  const words = () => ({
    mustClub: text.refusalText(s, frame("must-follow", { suit: "hearts", club: true })),
    turn: text.refusalText(s, frame("not-your-turn", { seat: 1 })),
    discardYou: text.refusalText(s, frame("discard-due", { seat: 0 })),
    discardOther: text.refusalText(s, frame("discard-due", { seat: 3 })),
    locked: text.refusalText(s, frame("locked", { tricks: 3 })),
    absent: text.refusalText(s, frame("not-in-hand", { card: "QD", why: "absent" })),
    picture: text.refusalText(s, frame("picture-rank", { suit: "spades", cards: ["JC", "KC"] })),
    pictureNone: text.refusalText(s, frame("picture-rank", { suit: "spades", cards: ["KC"] })),
    stale: text.refusalText(s, frame("stale", {}, "The table moved on.")),
    unknown: text.refusalText(s, frame("something-new", {}, "Something (R9) happened.")),
  });

  await i18n.setLanguage("en", { save: false });
  const en = words();
  assert.equal(en.mustClub, "You hold hearts: you must follow hearts. A club may replace it only while a jack, queen or king lies in the trick.");
  assert.equal(en.turn, "It is not your turn: Þóra plays now.");
  assert.equal(en.discardYou, "Lockup must first take one of your cards.");
  assert.equal(en.discardOther, "Lockup must first take a card from Vigdís.");
  assert.equal(en.locked, "You are locked up: you sit out this trick and 2 more.");
  assert.equal(en.absent, "You do not hold the queen of diamonds.");
  // A card already on the table (the K♣) is never offered as the way out.
  assert.match(en.picture, /: J♣\.$/);
  assert.match(en.pictureNone, /already on the table\.$/);
  assert.equal(en.stale, "The table had moved on: your page has been brought up to date. Play your card again.");
  assert.equal(en.unknown, "Something happened.");

  await i18n.setLanguage("fr", { save: false });
  const fr = words();
  assert.match(fr.mustClub, /^Vous avez du cœur : vous devez fournir à cœur\. Un trèfle/);
  assert.equal(fr.turn, "Ce n'est pas votre tour : c'est à Þóra de jouer.");
  assert.equal(fr.discardYou, "L'enfermement doit d'abord vous prendre une carte.");
  assert.equal(fr.discardOther, "L'enfermement doit d'abord prendre une carte à Vigdís.");
  assert.equal(fr.locked, "Vous êtes enfermé : vous passez ce pli et les 2 suivants.");
  assert.equal(fr.absent, "Vous n'avez pas cette carte (dame de carreau).");
  assert.match(fr.picture, / : V♣\.$/);
  assert.match(fr.stale, /^La table avait avancé/);
});
