"""Write an agent and benchmark it: the whole agent protocol in a few lines.

An agent has a ``name`` and ``act(decision)``, which returns one legal action id for
each of the ``decision.size`` games it is asked about (``decision.mask`` is their
bool [n, actions] legal mask; ``decision.view`` what the seat sees).
"""

import rummy500


class FirstLegal:
    name = "first-legal"

    def act(self, decision):
        return decision.mask.argmax(axis=1)  # the lowest legal id: draw, meld, discard...


card = rummy500.benchmark(FirstLegal(), level="quick")
print(card["summary"])
