// A rummy500 agent in its own process, in JavaScript (Node.js), speaking protocol
// rummy500-agent/1: one JSON object per line on stdin, one answer per line on stdout.
//
//     rummy500 eval --agents "cmd:node first_legal.js" sharp --games 20
//
// It asks for its decisions in batches ("batch": true), so each round trip carries many.
const readline = require("readline");

function choose(decision) {
  // Meld or lay off when possible, else the first legal move (draw, then discard).
  const play = decision.legal.find((m) => m.text.startsWith("meld") || m.text.startsWith("layoff"));
  return (play || decision.legal[0]).id;
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line);
  let answer;
  if (message.hello) answer = { name: "first-legal (node)", batch: true };
  else if (message.decisions) answer = { actions: message.decisions.map(choose) };
  else answer = { action: choose(message) };
  process.stdout.write(JSON.stringify(answer) + "\n");
});
