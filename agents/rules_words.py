"""The rules of one game in English, read from its ``Rules``: for people and language models.

Every sentence is built from the flags (and the engine's own point tables), never from
a preset's name, so a preset with flags changed on top of it reads as what it is:

* ``game_words``: the opening line (the variant, the players, how the game is won);
* ``rules_words``: the rules that matter to a player, one line per topic;
* ``move_words``: what each kind of move (the first word of its text) does;
* ``counted``: "1 card", "2 cards".

>>> from rummy_env.core import Rules
>>> game_words(Rules.preset_named("jokers", target=250))
'Rummy 500 (preset jokers, with target 250), 2 players, first to 250 points.'
>>> [line for line in rules_words(Rules()) if line.startswith("Card values")]
['Card values: A 15 (1 as the low ace of a run A-2-3), K Q J T 10 each, 2 to 9 their face value.']
>>> move_words(Rules())["discard"]
'discard C: put C face up on the discard pile, which ends your turn.'
"""

from __future__ import annotations

from functools import lru_cache

from rummy_env.core import JOKER, N_RANKS, Rules, rank_points
from rummy_env.core.cards import RANKS
from rummy_env.core.lookup import lookup_tables

SAFEGUARDS = ("max_turns", "max_hands")
"""Flags that only keep games finite: stated, but not named as a change to the variant."""


def counted(n: int, noun: str) -> str:
    """``n`` and the noun, plural unless n is 1: ``counted(1, "card")`` is "1 card"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


@lru_cache(maxsize=64)
def game_words(rules: Rules) -> str:
    """One line: the variant (its preset and any flag set on top of it), the players,
    and how the game is won."""
    preset = Rules.preset_named(rules.preset, players=rules.players).to_dict()
    changed = [
        f"{name} {_flag_text(value)}"
        for name, value in rules.to_dict().items()
        if value != preset[name] and name not in SAFEGUARDS
    ]
    variant = f"preset {rules.preset}" + (f", with {', '.join(changed)}" if changed else "")
    if rules.game_hands:
        goal = f"{counted(rules.game_hands, 'hand')}, the highest total wins"
    elif rules.go_out_to_win:
        goal = f"the first to go out with {rules.target} points or more wins"
    else:
        goal = f"first to {rules.target} points"
    return f"Rummy 500 ({variant}), {counted(rules.players, 'player')}, {goal}."


@lru_cache(maxsize=64)
def rules_words(rules: Rules) -> tuple[str, ...]:
    """The rules of ``rules`` that matter to a player, one line per topic."""
    lines = [
        _deal(rules),
        "A turn: draw the top card of the stock or take cards from the top of the "
        "discard pile (all its cards lie face up); then meld and lay off as you like; "
        "then discard one card, which ends the turn."
        + (
            " Every turn must end with a discard: no meld or lay-off may empty your hand."
            if rules.discard_required
            else ""
        ),
        _melds(rules),
        _taking(rules),
        _layoffs(rules),
    ]
    if rules.n_jokers:
        lines.append(_jokers(rules))
    if rules.rummy_call:
        lines.append(
            "Rummy calls: after a discard that could be laid off on the table or "
            "melded with cards in the pile, each other player who could meld or lay "
            "it off at once from their own hand is asked in turn, from the "
            "discarder's left: call (take it, meld or lay it off at once, meld and lay "
            "off more if you like, then say done) or pass. Then play goes on with "
            "the player left of the discarder."
        )
    lines += [
        "Known cards: a card taken from the pile (or called) is known to everyone to "
        "be in the taker's hand until it is played.",
        _hand_end(rules),
        "Scoring: at the end of a hand each player scores the cards they melded or laid "
        "off during the hand, minus the cards left in their hand; hand scores and "
        "totals may be negative.",
        card_values(rules),
        _game_end(rules),
    ]
    return tuple(lines)


def card_values(rules: Rules) -> str:
    """What every card scores on the table and costs in hand, from the engine's tables."""
    points = [rank_points(r, rules.pip_values) for r in range(N_RANKS)]
    ace = f"A {points[0]}" + (
        f" ({rules.low_ace_value} as the low ace of a run A-2-3)"
        if rules.low_ace_value != points[0]
        else " (also low in A-2-3)"
    )
    faces = sorted(set(points[9:]))
    face_part = (
        f"K Q J T {faces[0]} each"
        if len(faces) == 1
        else " ".join(f"{RANKS[r]} {points[r]}" for r in range(9, N_RANKS))
    )
    pips = points[1:9]
    if pips == list(range(2, 10)):
        pip_part = "2 to 9 their face value"
    elif len(set(pips)) == 1:
        pip_part = f"2 to 9 {pips[0]} each"
    else:
        pip_part = " ".join(f"{r + 1} {points[r]}" for r in range(1, 9))
    parts = [ace, face_part, pip_part]
    if rules.n_jokers:
        in_hand = int(lookup_tables(rules).card_values[JOKER])
        parts.append(
            f"a joker {in_hand} melded or in hand"
            if rules.joker_value != "declared"
            else f"a melded joker as the card it stands for, a joker in hand {in_hand}"
        )
    return "Card values: " + ", ".join(parts) + "."


@lru_cache(maxsize=64)
def move_words(rules: Rules) -> dict[str, str]:
    """What each kind of move does under ``rules``, by the first word of its text."""
    joker = " (a joker from your hand stands for a card you lack)" if rules.n_jokers else ""
    take = "take N: take the top N cards of the discard pile into your hand"
    if rules.dig:
        take += (
            "; with N of 2 or more (a dig) the deepest card taken must be used in your "
            "first meld or lay-off this turn"
            + (" (or swapped for a melded joker that stands for it)" if rules.dig_swap else "")
            + ", before any discard"
        )
    if rules.top_card_must_meld:
        take += "; after take 1 that card must be melded or laid off first this turn"
    take += (
        "; no card taken from the pile may be discarded this turn"
        if rules.keep_taken
        else "; after take 1 that card may not be discarded this turn"
    )
    return {
        "draw": "draw: take the top card of the stock.",
        "end": "end: end the hand (the stock is empty).",
        "take": take + ".",
        "meld": f"meld C1 C2 C3 ...: lay these cards from your hand on the table as a new set "
        f"or run{joker}; they score for you.",
        "layoff": f"layoff C set|up|down: add C from your hand to a meld on the table{joker}: "
        "'set' to a set of its rank, 'up' to a run as its new highest card, 'down' "
        "to a run as its new lowest card; it scores for you.",
        "swap": "swap C: put your natural C in place of a melded joker that stands for C; "
        "the joker comes to your hand.",
        "discard": "discard C: put C face up on the discard pile, which ends your turn"
        + (" ('discard JK' discards a joker)" if rules.n_jokers else "")
        + ".",
        "call": "call: take the discarded card at stake into your hand; you must meld or lay "
        "it off at once, may then meld and lay off more, and finish with done.",
        "pass": "pass: leave the discarded card at stake to others.",
        "done": "done: finish your call; play goes on with the player left of the discarder.",
    }


def _flag_text(value) -> str:
    """A flag's value as the rules files write it (booleans as on/off)."""
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


def _deal(rules: Rules) -> str:
    decks = "one 52-card deck" if rules.n_decks == 1 else "two 52-card decks"
    jokers = f" and {counted(rules.n_jokers, 'joker')}" if rules.n_jokers else ""
    total = f" ({rules.deck_cards} cards)" if rules.n_jokers else ""
    return (
        f"The deal: {decks}{jokers}{total}; each player gets "
        f"{counted(rules.hand_cards, 'card')}, one card starts the discard pile, the rest "
        f"is the stock. Seats are numbered 0 to {rules.players - 1}; a seat's left is the "
        "next seat up (after the last comes seat 0). The player left of the dealer plays "
        "first, and the deal passes to the left each hand."
    )


def _melds(rules: Rules) -> str:
    if rules.wrap:
        ace = "runs may turn the corner from K to A to 2"
    elif rules.ace_high:
        ace = (
            "the ace is low (A-2-3) or high (Q-K-A) but never both in one run, and runs do "
            "not turn the corner (K-A-2 is not a run)"
        )
    else:
        ace = "the ace is low only (A-2-3; Q-K-A is not a run)"
    return (
        "Melds: a set is 3 or 4 cards of one rank, all of different suits; a run is 3 or "
        f"more cards of one suit in sequence; {ace}."
    )


def _taking(rules: Rules) -> str:
    if rules.dig:
        words = (
            "Taking from the pile: 'take N' takes the top N cards. Taking 2 or more "
            "(digging) is allowed only if the deepest card taken can be played this turn, "
            "and that card must then be used in your first meld or lay-off"
            + (", or swapped for a melded joker that stands for it" if rules.dig_swap else "")
            + "; until then you may not discard."
        )
    else:
        words = "Taking from the pile: only its top card may be taken ('take 1')."
    if rules.top_card_must_meld:
        words += (
            " 'take 1' is allowed only when that card can be played this turn, and it "
            "must then be melded or laid off first."
        )
    if rules.keep_taken:
        return words + (
            " No card taken from the pile may be discarded in the same turn "
            "(unless it is all you hold)."
        )
    return words + (
        " After 'take 1' that card may not be discarded in the same turn (unless it "
        "is all you hold)" + ("; after a dig any card may be." if rules.dig else ".")
    )


def _layoffs(rules: Rules) -> str:
    who = (
        "only once you have laid a meld of your own this hand"
        if rules.layoff_requires_meld
        else "at any time in your turn after the draw"
    )
    return (
        "Lay-offs: you may add a card from your hand to any meld on the table, whoever laid "
        f"it, {who}; the card scores for you."
    )


def _jokers(rules: Rules) -> str:
    words = (
        "Jokers: a joker (JK) stands for any card. Melded or laid off, it is declared as "
        "one card for good (shown as JK=6H); moves name the card it stands for, and your "
        "natural cards are used first."
    )
    if rules.n_decks == 1:
        words += " It may not stand for a card already on the table."
    if rules.joker_swap:
        words += (
            " Joker swap: after the draw, a natural card from your hand may replace a "
            "melded joker that stands for it ('swap 7H'); the joker goes to your hand."
        )
    return words


def _hand_end(rules: Rules) -> str:
    if rules.floating:
        out = (
            "melding or laying off your whole hand does not end the hand: you float (you are "
            "not asked in calls) and on a later turn draw and then go out by melding or "
            "discarding your last cards. Discarding your last card ends the hand at once"
        )
    else:
        out = (
            "a hand ends at once when a player has no cards left, by melding and laying off "
            "or by discarding the last card"
        )
    stock = (
        "the hand ends after the turn of the player who draws the last stock card"
        if rules.stock_out == "last_draw"
        else "a player may still take from the pile, or 'end' the hand"
    )
    return (
        f"End of a hand: {out} (going out earns no bonus). When the stock runs out, {stock}. "
        f"A hand also ends after {counted(rules.max_turns, 'turn')}, as if the stock had "
        "run out."
    )


def _game_end(rules: Rules) -> str:
    tie = (
        "the tied player holding the lowest-valued card wins (holding no card beats any "
        "card; equal lowest cards play on)"
        if rules.tie_break == "lowest_card"
        else "another hand is played"
    )
    if rules.game_hands:
        end = (
            f"it ends after hand {rules.game_hands} whatever the totals (reaching "
            f"{rules.target} earlier ends nothing); the highest total wins"
        )
    elif rules.go_out_to_win:
        end = (
            f"it ends only when the player who goes out has {rules.target} points or "
            "more; that player wins"
        )
    else:
        end = (
            f"it ends after a hand in which the highest total is {rules.target} or "
            "more; that player wins"
        )
    if rules.go_out_to_win and not rules.game_hands:
        tie = ""  # the seat that went out wins alone
    else:
        tie = f" If the highest total is shared, {tie}."
    return (
        f"End of the game: {end}.{tie} After {counted(rules.max_hands, 'hand')} without a "
        "winner the game stops and nobody wins."
    )
