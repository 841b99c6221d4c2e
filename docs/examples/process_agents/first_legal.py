"""A rummy500 agent in its own process, in plain Python: it does not import the project.

    rummy500 eval --agents "cmd:python first_legal.py" sharp --games 20

Protocol rummy500-agent/1: one JSON object per line on stdin, one answer per line on
stdout (flush after each). The first message says hello (the rules and a seed); answer
with your options. Each later message is one decision: answer the id or the text of a
legal move. With "batch": true in the hello answer, decisions come in lists.
"""

import json
import sys


def choose(decision):
    """Meld or lay off when possible, else the first legal move: draw, then discard."""
    for move in decision["legal"]:
        if move["text"].startswith(("meld", "layoff")):
            return move["id"]
    return decision["legal"][0]["id"]


for line in sys.stdin:
    message = json.loads(line)
    if "hello" in message:
        answer = {"name": "first-legal (python)", "batch": "--batch" in sys.argv}
    elif "decisions" in message:
        answer = {"actions": [choose(d) for d in message["decisions"]]}
    else:
        answer = {"action": choose(message)}
    print(json.dumps(answer), flush=True)
