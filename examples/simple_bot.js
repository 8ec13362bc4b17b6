#!/usr/bin/env node
// A small outside Lockup bot in JavaScript (Node.js, no packages): the lockup-bot/2
// protocol of docs/bot-protocol.md. It plays like examples/simple_bot.py.
//
//   lockup arena --bots "cmd:node examples/simple_bot.js,random,random,random" --hands 200
"use strict";
const readline = require("readline");

const RANKS = "23456789TJQKA";
const rank = (card) => RANKS.indexOf(card[0]);
const suit = (card) => card[1];
const lowest = (cards) => cards.reduce((a, b) => (rank(b) < rank(a) ? b : a));
const highest = (cards) => cards.reduce((a, b) => (rank(b) > rank(a) ? b : a));

function choose(view) {
  const legal = view.legal;
  const trick = view.trick;
  if (trick.length === 0) return highest(legal); // leading: our highest card
  const led = suit(trick[0].card);
  const best = Math.max(...trick.filter((p) => suit(p.card) === led).map((p) => rank(p.card)));
  const hasClubs = trick.some((p) => suit(p.card) === "C");
  const follow = legal.filter((c) => suit(c) === led);
  if (follow.length > 0) {
    const over = follow.filter((c) => rank(c) > best);
    const under = follow.filter((c) => rank(c) < best);
    if (hasClubs && under.length > 0) return highest(under); // duck a trick holding clubs
    if (!hasClubs && over.length > 0) return highest(over); // take a clean trick
    return lowest(follow);
  }
  const clubs = legal.filter((c) => suit(c) === "C");
  return clubs.length > 0 ? highest(clubs) : lowest(legal);
}

const input = readline.createInterface({ input: process.stdin });
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
input.on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  if (message.type === "hello") {
    send({ type: "hello", protocol: "lockup-bot/2" });
  } else if (message.type === "turn") {
    send({ id: message.id, card: choose(message.view) });
  } else if (message.type === "bye") {
    input.close();
  }
});
