"""Text rendering of one game: hands, the spread pile with depths, the table, scores.

Used by the ``ansi`` / ``human`` render modes of the PettingZoo and Gymnasium
envs. It shows the full state (every hand): it is for people watching a game,
never for agents.
"""

from __future__ import annotations

import numpy as np

from rummy_env.core import PHASE_NAMES, Rules, State, card_text, count_texts, meld_cards


def _cards(counts: np.ndarray) -> str:
    return " ".join(count_texts(counts)) or "-"


def render_text(rules: Rules, state: State, g: int = 0, names: list[str] | None = None) -> str:
    """A multi-line picture of game ``g`` of ``state``."""
    p = rules.players
    names = names or [f"player_{i}" for i in range(p)]
    lines = [
        f"hand {int(state.hand_number[g]) + 1}, turn {int(state.turn[g])}, "
        f"phase {PHASE_NAMES[int(state.phase[g])]}, "
        f"to play: {names[int(state.current_player[g])]}, "
        f"dealer: {names[int(state.dealer[g])]}"
    ]
    for seat in range(p):
        known = state.known[g, seat]
        extra = f"   (known: {_cards(known)})" if known.any() else ""
        lines.append(
            f"  {names[seat]:<10} [{int(state.hand_size[g, seat]):>2}] "
            f"{_cards(state.hand[g, seat])}{extra}"
        )
    size = int(state.pile_size[g])
    pile = [f"{card_text(int(state.pile[g, i]))}:{size - i}" for i in range(size)]
    lines.append(f"  stock: {int(state.stock_size[g])} cards")
    lines.append("  pile (card:depth, top last): " + (" ".join(pile) or "-"))
    lines.append("  table (card(seat that laid it)):" + ("" if state.n_melds[g] else " -"))
    for m in range(int(state.n_melds[g])):
        cards, by = meld_cards(state, g, m)
        laid = " ".join(f"{c}({b})" for c, b in zip(cards, by))
        lines.append(f"    {m + 1:>2}. {laid}")
    owed, banned = int(state.owed[g]), int(state.no_discard[g])
    if owed >= 0 or banned >= 0:
        lines.append(
            f"  owed: {card_text(owed) if owed >= 0 else '-'}, "
            f"may not discard: {card_text(banned) if banned >= 0 else '-'}"
        )
    totals = ", ".join(f"{names[s]} {int(state.totals[g, s])}" for s in range(p))
    lines.append(f"  totals: {totals} (target {rules.target})")
    if state.hand_number[g] > 0 or state.hand_ended[g]:
        last = ", ".join(f"{names[s]} {int(state.hand_scores[g, s])}" for s in range(p))
        lines.append(f"  last hand: {last}")
    if state.game_over[g]:
        winner = int(state.winner[g])
        lines.append(
            "  game over: " + (f"{names[winner]} wins" if winner >= 0 else "truncated, no winner")
        )
    return "\n".join(lines)
