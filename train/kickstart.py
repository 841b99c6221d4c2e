"""Kickstarting: fit the policy to a teacher's choices on the learner's own decisions.

PPO from scratch spends its first steps finding what any decent player knows: meld
what can be melded, keep cards that make runs and sets, do not hand the other seat
the card it wants. A teacher that already plays that way can say so at every
decision. Kickstarting (Schmitt et al., 2018) adds to PPO's loss the cross-entropy
between the policy and the teacher's choice at the states the learner itself
reaches, with a weight that decays to zero so that PPO's own advantage takes over
and the learner can pass its teacher. Unlike a warm start fitted offline to the
teacher's own games, the learner is corrected where its own mistakes lead it, and
its entropy bonus keeps it exploring.

``teacher=NAME`` names the teacher (any agent ``rummy500 eval`` takes, e.g.
``sharp``), ``teacher_coef`` its weight at the start and ``teacher_until`` the share
of the step budget by which the weight reaches zero. Only training asks the teacher:
the saved policy is the same network as ever.
"""

from __future__ import annotations


def teacher_weight(coef: float, until: float, step: int, total_steps: int) -> float:
    """The teacher's weight at agent-step ``step``: ``coef`` at 0, decaying linearly to 0
    at ``until * total_steps`` and 0 after."""
    end = until * total_steps
    if end <= 0:
        return 0.0
    return coef * max(0.0, 1.0 - step / end)
