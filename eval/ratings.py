"""Ratings from a match: Bradley-Terry strengths on the Elo scale, with bootstrap intervals.

Every game gives one comparison for each pair of agents at the table: the
agent whose best seat finished with the higher total beats the other (equal
totals: half a win each). ``bradley_terry`` fits P(a beats b) = s_a / (s_a + s_b)
by the minorise-maximise iteration (Hunter 2004), with ``prior`` virtual half
wins each way per pair so that an agent that won every game still gets a
finite rating. Ratings are 400 log10(s) centred on 1500: a 200-point gap means
the stronger agent is expected to win about 76% of their meetings.
``rate_match`` gives each rating a 95% interval by resampling whole clusters
(deals under ``--duplicate``, otherwise games), which keeps what a deal's games
share. An agent whose every pairing went one way (all won or all lost), or whose
resamples all agree, gets the wider of that and a second interval that draws
each pairing's win chance from its Jeffreys posterior, Beta(wins + 1/2, losses +
1/2), and fits the ratings to those chances: resampled clusters of a sweep are
the same sweep, and alone they would claim an exact rating, while the posterior
leaves the sweep's far side wide open.
"""

from __future__ import annotations

import numpy as np

from rummy500.eval.arena import MatchResult

ELO_SCALE = 400.0
ELO_CENTRE = 1500.0


def best_totals(match: MatchResult) -> np.ndarray:
    """float64 [G, k]: each agent's best final total in each game, nan when absent."""
    k = len(match.agent_names)
    out = np.full((match.n_games, k), -np.inf)
    for seat in range(match.lineups.shape[1]):
        a = match.lineups[:, seat]
        rows = np.arange(match.n_games)
        out[rows, a] = np.maximum(out[rows, a], match.totals[:, seat])
    return np.where(np.isfinite(out), out, np.nan)


def pairwise(match: MatchResult) -> tuple[np.ndarray, np.ndarray]:
    """(score [G, k, k], met [G, k, k]): a's score against b in each game (1, 0.5, 0)."""
    best = best_totals(match)
    a = best[:, :, None]
    b = best[:, None, :]
    met = ~np.isnan(a) & ~np.isnan(b)
    k = best.shape[1]
    met &= ~np.eye(k, dtype=bool)[None]
    score = np.where(met, (a > b) + 0.5 * (a == b), 0.0)
    return score, met.astype(np.float64)


def bradley_terry(
    wins: np.ndarray,
    games: np.ndarray,
    prior: float = 0.5,
    iterations: int = 500,
    tol: float = 1e-10,
) -> np.ndarray:
    """Strengths s [k] (geometric mean 1) from wins[a, b] of a over b in games[a, b]."""
    k = wins.shape[0]
    off = ~np.eye(k, dtype=bool)
    w = wins + prior * off
    n = games + 2 * prior * off
    s = np.ones(k)
    total_wins = w.sum(axis=1)
    for _ in range(iterations):
        denom = (n / (s[:, None] + s[None, :])).sum(axis=1)
        new = np.where(denom > 0, total_wins / np.maximum(denom, 1e-300), s)
        new = new / np.exp(np.log(np.maximum(new, 1e-300)).mean())
        if np.max(np.abs(np.log(new) - np.log(s))) < tol:
            s = new
            break
        s = new
    return s


def to_elo(strength: np.ndarray) -> np.ndarray:
    r = ELO_SCALE * np.log10(strength)
    return r - r.mean() + ELO_CENTRE


def clusters_of(match: MatchResult) -> np.ndarray:
    """int64 [G]: the resampling unit of each game (its deal under duplicate play)."""
    if match.duplicate:
        return np.unique(match.deal, return_inverse=True)[1].astype(np.int64)
    return np.arange(match.n_games)


def rate_match(match: MatchResult, bootstrap: int = 200, seed: int = 0) -> dict[str, dict]:
    """{agent: {"rating", "lo", "hi"}}: Bradley-Terry Elo with bootstrap 95% intervals."""
    score, met = pairwise(match)
    cluster = clusters_of(match)
    n_clusters = int(cluster.max()) + 1 if cluster.size else 0
    k = len(match.agent_names)
    cw = np.zeros((n_clusters, k, k))
    cn = np.zeros((n_clusters, k, k))
    np.add.at(cw, cluster, score)
    np.add.at(cn, cluster, met)
    wins, games = cw.sum(axis=0), cn.sum(axis=0)
    rating = to_elo(bradley_terry(wins, games))
    if not bootstrap:
        lo = hi = np.full(k, np.nan)
    else:
        rng = np.random.default_rng(seed)
        samples = np.empty((bootstrap, k))
        for i in range(bootstrap):
            pick = rng.integers(0, n_clusters, n_clusters)
            samples[i] = to_elo(bradley_terry(cw[pick].sum(axis=0), cn[pick].sum(axis=0)))
        lo, hi = np.percentile(samples, [2.5, 97.5], axis=0)
        # A sweep, or clusters that all tell one story: the resamples show no doubt.
        no_doubt = one_sided(wins, games) | (hi <= lo)
        if no_doubt.any():
            draw_rng = np.random.default_rng([seed, 1])
            redrawn = np.stack(
                [
                    to_elo(bradley_terry(posterior_wins(wins, games, draw_rng), games, prior=0.0))
                    for _ in range(bootstrap)
                ]
            )
            lo = np.where(no_doubt, np.minimum(lo, np.percentile(redrawn, 2.5, axis=0)), lo)
            hi = np.where(no_doubt, np.maximum(hi, np.percentile(redrawn, 97.5, axis=0)), hi)
    return {
        name: {"rating": float(rating[a]), "lo": float(lo[a]), "hi": float(hi[a])}
        for a, name in enumerate(match.agent_names)
    }


def one_sided(wins: np.ndarray, games: np.ndarray) -> np.ndarray:
    """bool [k]: agents that won all or lost all of their games against each opponent met."""
    met = games > 0
    decided = (wins == 0) | (wins == games)
    return (decided | ~met).all(axis=1) & met.any(axis=1)


def posterior_wins(wins: np.ndarray, games: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """wins [k, k]: each pair's games split at a win chance drawn from its Jeffreys
    posterior (strictly between 0 and 1, so a fit needs no prior to stay finite)."""
    upper = np.triu(games > 0, k=1)
    n, won = games[upper], wins[upper]
    chance = np.clip(rng.beta(won + 0.5, n - won + 0.5), 1e-9, 1 - 1e-9)
    out = np.zeros_like(games, dtype=np.float64)
    out[upper] = n * chance
    out.T[upper] = n * (1 - chance)
    return out
