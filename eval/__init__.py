"""Evaluation: the arena, win rates with confidence intervals, ratings, reports
and agent benchmarks."""
