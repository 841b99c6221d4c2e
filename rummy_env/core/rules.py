"""The rules config: a validated, frozen dataclass with named presets.

Every flag of the rule book (docs/rules.md) is a field here. ``Rules.from_dict``
takes a preset name and/or flags (flags override the preset); unknown keys and
bad values raise ``ValueError`` naming the key and the allowed values.

>>> Rules.from_dict({"preset": "web", "players": 3}).hand_cards
7
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from .cards import N_NATURAL

# Allowed values per flag; a tuple lists them, a range bounds an integer.
_CHOICES: dict[str, Any] = {
    "players": range(2, 9),
    "decks": ("auto", 1, 2),
    "hand_size": "auto or an integer >= 1",
    "max_turns": range(1, 32_768),  # the state counts turns in 16 bits
    "max_hands": range(1, 32_768),  # and hands too
    "jokers": (0, 1, 2),
    "joker_value": (15, 25, "declared"),
    "low_ace_value": (1, 15),
    "ace_high": (True, False),
    "wrap": (True, False),
    "pip_values": ("face", "flat5"),
    "dig": (True, False),
    "top_card_must_meld": (True, False),
    "discard_required": (True, False),
    "layoff_requires_meld": (True, False),
    "floating": (True, False),
    "joker_swap": (True, False),
    "rummy_call": (True, False),
    "stock_out": ("pass", "last_draw"),
    "go_out_to_win": (True, False),
    "target": range(1, 1_000_001),
    "keep_taken": (True, False),
    "dig_swap": (True, False),
    "game_hands": range(0, 32_768),  # 0 = off; hands are counted in 16 bits
    "tie_break": ("play_on", "lowest_card"),
}


@dataclass(frozen=True)
class Rules:
    """One game's rules. Field names and meanings follow docs/rules.md."""

    players: int = 2
    """Seats at the table, 2 to 8."""
    decks: int | str = "auto"
    """``auto`` (1 deck for 2-4 players, 2 for 5-8), 1 or 2."""
    hand_size: int | str = "auto"
    """``auto`` (13 with 2 players, 7 with more) or cards dealt to each seat."""
    max_turns: int = 400
    """A hand that reaches this many finished turns ends as if the stock ran out."""
    max_hands: int = 100
    """A game that has played this many hands stops, truncated, with no winner."""
    jokers: int = 0
    """Jokers added per deck."""
    joker_value: int | str = 15
    """A joker is worth 15, 25, or (``declared``) the card it stands for when melded."""
    low_ace_value: int = 1
    """Points of an ace that sits low in a run (A-2-3)."""
    ace_high: bool = True
    """Whether Q-K-A is a run; the ace is always allowed low."""
    wrap: bool = False
    """House rule: runs may pass from K to A to 2 (overrides ``ace_high``)."""
    pip_values: str = "face"
    """2-9 score face value (``face``) or 5 each (``flat5``)."""
    dig: bool = True
    """Whether cards below the top of the discard pile may be taken."""
    top_card_must_meld: bool = False
    """After ``take 1`` the card must be melded or laid off this turn."""
    discard_required: bool = False
    """Every turn ends with a discard: no meld or lay-off may empty the hand."""
    layoff_requires_meld: bool = False
    """A seat may lay off only after melding a meld of its own this hand."""
    floating: bool = False
    """Melding the whole hand floats the player instead of ending the hand."""
    joker_swap: bool = False
    """A natural card may replace a melded joker declared as that card."""
    rummy_call: bool = False
    """Other players may call a discard that could be melded or laid off."""
    stock_out: str = "pass"
    """``pass`` (standard) or ``last_draw``: the hand ends after the last stock card's turn."""
    go_out_to_win: bool = False
    """The game ends only when the player who goes out has reached the target."""
    target: int = 500
    """Points that end the game."""
    keep_taken: bool = False
    """No card taken from the pile this turn (by any ``take``) may be discarded this turn."""
    dig_swap: bool = False
    """(With ``joker_swap``) the dug card may swap a melded joker, settling the obligation."""
    game_hands: int = 0
    """A quick game: it ends after this many hands whatever the totals; 0 = off."""
    tie_break: str = "play_on"
    """A tie for the lead when the game would end: play on, or ``lowest_card`` in hand wins."""
    preset: str = field(default="standard", compare=False)
    """The preset these rules started from (informational)."""

    def __post_init__(self) -> None:
        for name, allowed in _CHOICES.items():
            value = getattr(self, name)
            if isinstance(allowed, range):
                ok = is_int(value) and value in allowed
            elif isinstance(allowed, tuple):
                ok = any(type(value) is type(a) and value == a for a in allowed)
            elif name == "hand_size":
                ok = value == "auto" or is_int(value) and value >= 1
            else:
                ok = is_int(value) and value >= 1
            if not ok:
                shown = (
                    f"an integer from {allowed.start} to {allowed.stop - 1}"
                    if isinstance(allowed, range)
                    else list(allowed)
                    if isinstance(allowed, tuple)
                    else allowed
                )
                raise ValueError(f"rules: {name}={value!r} is not allowed; allowed: {shown}")
        if self.dig_swap and not self.joker_swap:
            raise ValueError(
                "rules: dig_swap=True needs joker_swap=True (the dug card swaps a "
                "melded joker); set joker_swap: true or dig_swap: false"
            )
        if self.floating and self.discard_required:
            raise ValueError(
                "rules: floating=True cannot take effect under discard_required=True "
                "(no meld or lay-off may empty a hand, so nobody ever floats); "
                "set floating: false or discard_required: false"
            )
        needed = self.players * self.hand_cards + 1
        if needed > self.deck_cards:
            raise ValueError(
                f"rules: the deal does not fit the deck: {self.players} players x "
                f"{self.hand_cards} cards + 1 for the discard pile = {needed} > "
                f"{self.deck_cards} cards ({self.n_decks} deck(s), "
                f"{self.jokers} joker(s) per deck); "
                "lower hand_size or players" + (", or set decks: 2" if self.n_decks == 1 else "")
            )

    # Derived quantities -------------------------------------------------------
    @property
    def n_decks(self) -> int:
        if self.decks == "auto":
            return 1 if self.players <= 4 else 2
        return int(self.decks)

    @property
    def hand_cards(self) -> int:
        if self.hand_size == "auto":
            return 13 if self.players == 2 else 7
        return int(self.hand_size)

    @property
    def n_jokers(self) -> int:
        return self.jokers * self.n_decks

    @property
    def deck_cards(self) -> int:
        return N_NATURAL * self.n_decks + self.n_jokers

    @property
    def runs_ace_high(self) -> bool:
        """A run may end on a high ace (``ace_high``, or runs that wrap round)."""
        return self.ace_high or self.wrap

    # Construction -------------------------------------------------------------
    @classmethod
    def from_dict(cls, config: dict[str, Any] | None = None) -> Rules:
        """Rules from ``{"preset": NAME, flag: value, ...}``; flags override the preset."""
        if config is not None and not isinstance(config, dict):
            raise ValueError(
                f"rules: expected a mapping of rule flags (e.g. "
                f"{{preset: standard, target: 250}}), got {config!r}"
            )
        config = dict(config or {})
        preset = config.pop("preset", "standard")
        if preset not in PRESETS:
            raise ValueError(f"rules: preset={preset!r} is not allowed; allowed: {sorted(PRESETS)}")
        known = {f.name for f in dataclasses.fields(cls)} - {"preset"}
        unknown = sorted(set(config) - known)
        if unknown:
            raise ValueError(
                f"rules: unknown key(s) {unknown}; allowed keys: ['preset'] + {sorted(known)}"
            )
        merged = {**PRESETS[preset], **config}
        return cls(**merged, preset=preset)

    @classmethod
    def preset_named(cls, name: str, **overrides: Any) -> Rules:
        return cls.from_dict({"preset": name, **overrides})

    def to_dict(self) -> dict[str, Any]:
        """Every flag (not the preset name): ``Rules.from_dict(r.to_dict()) == r``."""
        fields = dataclasses.fields(self)
        return {f.name: getattr(self, f.name) for f in fields if f.name != "preset"}

    def replace(self, **changes: Any) -> Rules:
        return dataclasses.replace(self, **changes)

    # Hashing ------------------------------------------------------------------
    def __hash__(self) -> int:
        """The hash of the compared fields, worked out once: every lookup table is cached
        by the rules, and one game's step asks for several of them."""
        try:
            return self.__dict__["_hash"]
        except KeyError:
            value = hash(
                tuple(getattr(self, f.name) for f in dataclasses.fields(self) if f.compare)
            )
            object.__setattr__(self, "_hash", value)
            return value

    def __getstate__(self) -> dict[str, Any]:
        """The fields without the kept hash: string hashes differ between processes."""
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "web": {"ace_high": False, "dig": False, "low_ace_value": 15, "stock_out": "last_draw"},
    "jokers": {
        "jokers": 2,
        "joker_value": 25,
        "pip_values": "flat5",
        "layoff_requires_meld": True,
        "floating": True,
        "joker_swap": True,
        "rummy_call": True,
    },
    "tournament": {
        "jokers": 2,
        "joker_value": "declared",
        "joker_swap": True,
        "dig_swap": True,
        "keep_taken": True,
        "hand_size": 7,
        "stock_out": "last_draw",
        "tie_break": "lowest_card",
    },
}
