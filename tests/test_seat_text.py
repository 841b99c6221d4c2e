"""The game in words: whole games under every preset played by a real ``cmd:`` process
that reads only each request's ``text`` and its legal moves' texts, each text held
against the request's data; the rules' words read from the flags; and the agent page's
example requests, one per preset, as the code makes them."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from request_examples import PAGE, page_with_examples

import rummy500
from rummy500.agents.rules_words import game_words, move_words, rules_words
from rummy_env.core import Rules

AGENT = Path(__file__).resolve().parent / "text_only_agent.py"

RULE_FACTS = {
    "standard": [
        "Taking 2 or more (digging) is allowed only if the deepest card",
        "must then be used in your first meld or lay-off",
        "the ace is low (A-2-3) or high (Q-K-A)",
        "A 15 (1 as the low ace of a run A-2-3), K Q J T 10 each, 2 to 9 their face value.",
        "whoever laid it, at any time in your turn after the draw",
        "a player may still take from the pile, or 'end' the hand",
        "highest total is 500 or more",
    ],
    "web": [
        "only its top card may be taken ('take 1')",
        "the ace is low only",
        "A 15 (also low in A-2-3), K Q J T 10 each, 2 to 9 their face value.",
        "the hand ends after the turn of the player who draws the last stock card",
    ],
    "jokers": [
        "one 52-card deck and 2 jokers (54 cards)",
        "2 to 9 5 each",
        "a joker 25 melded or in hand",
        "only once you have laid a meld of your own",
        "you float",
        "Rummy calls:",
        "Joker swap:",
    ],
    "tournament": [
        "each player gets 7 cards",
        "a melded joker as the card it stands for, a joker in hand 15",
        "or swapped for a melded joker that stands for it",
        "No card taken from the pile may be discarded in the same turn",
        "the tied player holding the lowest-valued card wins",
    ],
}
"""What each preset's texts must say, written here from the rule book (not from the code)."""

PLURAL_SLIP = re.compile(
    r"\b1 (cards|players|jokers|turns|hands|points|decks)\b"
    r"|\b(?!1\b)\d+ (card|player|joker|turn|hand|point|deck)\b(?![-s])"
)


def play_text_only(rules: Rules, log: Path, games: int) -> list[dict]:
    """Whole games of the text-only process against ``casual``; every request it got."""
    report = rummy500.evaluate(
        [f"cmd:{sys.executable} {AGENT} {log}", "casual"], games, rules=rules, seed=3, batch_size=4
    )
    assert report["stopped"] is None, report["stopped"]
    assert sum(a["games"] for a in report["agents"][:1]) >= games
    return [json.loads(line) for line in log.read_text().splitlines()]


def check_request(rules: Rules, request: dict) -> None:
    """The text states the variant, the rules, the view's facts and each move's meaning."""
    text, view = request["text"], request["view"]
    me = view["seat"]
    assert text.startswith(f"Rummy 500 (preset {rules.preset}), {rules.players} players")
    for fact in RULE_FACTS[rules.preset]:
        assert fact in text, (fact, text)
    assert not PLURAL_SLIP.search(text), PLURAL_SLIP.search(text)
    assert f"Your hand ({len(view['hand'])} card" in text and " ".join(view["hand"]) in text
    mine = view["known_cards"][me]
    assert (
        f"The others know you hold: {' '.join(mine)} (taken from the pile)."
        if mine
        else "The others know none of your cards."
    ) in text
    for seat in range(rules.players):
        theirs = view["known_cards"][seat]
        if seat != me and theirs:
            assert f"; you all know it holds {' '.join(theirs)} (taken" in text
    if view["phase"] == "call":
        assert f"A rummy call is open on {view['pile'][-1]}, the card just discarded" in text
    if view["owed"]:
        assert f"You must meld or lay off {view['owed']} first" in text
    meanings = text.split("What these moves mean:\n", 1)[1].splitlines()
    kinds = {move["text"].split()[0] for move in request["legal"]}
    assert {line[2:].split()[0].split(":")[0] for line in meanings} == kinds
    for move in request["legal"]:
        assert f"  {move['id']}: {move['text']}" in text
        if move["text"].startswith("take "):
            depth = int(move["text"].split()[1])
            assert f"{move['text']} (takes {' '.join(view['pile'][-depth:])}" in text


@pytest.mark.parametrize(
    "preset, players, games",
    [
        ("standard", 2, 2),
        ("web", 2, 2),
        ("jokers", 2, 6),
        ("tournament", 2, 2),
        ("jokers", 3, 3),
        ("standard", 4, 4),
    ],
)
def test_text_only_process_plays_whole_games(
    preset: str, players: int, games: int, tmp_path: Path
) -> None:
    rules = Rules.preset_named(preset, players=players)
    requests = play_text_only(rules, tmp_path / "requests.jsonl", games)
    for request in requests:
        check_request(rules, request)
    texts = "\n".join(r["text"] for r in requests)
    assert "(1 card)" in texts  # the singular is written where it is due
    phases = {r["view"]["phase"] for r in requests}
    assert phases >= {"draw", "play"}
    if rules.rummy_call:
        assert "call" in phases and "call_play" in phases
    if rules.dig:
        assert any(
            m["text"].startswith("take ") and m["text"] != "take 1"
            for r in requests
            for m in r["legal"]
        )


def test_the_words_follow_the_flags_not_the_preset_name() -> None:
    changed = Rules.preset_named("web", target=250, dig=True, game_hands=3)
    assert game_words(changed) == (
        "Rummy 500 (preset web, with dig on, target 250, "
        "game_hands 3), 2 players, 3 hands, the highest total wins."
    )
    words = "\n".join(rules_words(changed))
    assert "digging" in words and "only its top card" not in words
    assert "ends after hand 3 whatever the totals" in words
    goes_out = Rules(go_out_to_win=True, pip_values="flat5", top_card_must_meld=True)
    words = "\n".join(rules_words(goes_out))
    assert "the player who goes out has 500 points or more" in words
    assert "shared" not in words  # the seat that went out wins alone
    assert "2 to 9 5 each" in words and "'take 1' is allowed only when" in words
    assert "must be melded or laid off first" in move_words(goes_out)["take"]


def test_the_page_shows_one_request_per_preset_as_the_code_makes_it() -> None:
    page = PAGE.read_text()
    assert page == page_with_examples(page), "run: .venv/bin/python tests/request_examples.py"
    for preset in ("standard", "web", "jokers", "tournament"):
        assert f"### Preset `{preset}`" in page
