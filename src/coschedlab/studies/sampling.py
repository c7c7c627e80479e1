"""Samplers of a design space: the full grid, and SimX's active Pareto sampler (Section 4.1).

A design space is a grid of named parameters (each a list of values). A design is an index
tuple into it. A sampler is asked, again and again, which designs to run next given the results
so far (:meth:`Sampler.next`); the study is done when it answers nothing while no run is
still going.

* :class:`GridSampler`: every design at once (configuration O of the seed).
* :class:`ActiveParetoSampler`: first a coarse grid (every ``step``-th value of each parameter),
  then the fine-grid designs within ``step - 1`` index steps, on every axis, of a design on the
  coarse Pareto frontier (the seed: a 3x3 coarse grid of a 6x6 study, then the neighbours of
  its frontier: 36 -> 24 runs); ``rounds`` > 1 refines around the new frontier again.

Objectives are minimised; :func:`pareto_front` keeps the designs no other design dominates (no
worse in every objective and better in one); equal objective vectors are all kept.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from ..errors import InputError

__all__ = ["ActiveParetoSampler", "DesignSpace", "GridSampler", "Sampler", "pareto_front"]

Design = tuple[int, ...]


@dataclass(frozen=True)
class DesignSpace:
    """Named parameters, each with its grid of values (in order)."""

    names: tuple[str, ...]
    values: tuple[tuple[float, ...], ...]

    @classmethod
    def of(cls, grid: Mapping[str, Sequence[float]]) -> DesignSpace:
        """A checked space: at least one parameter, each with at least one distinct value."""
        if not grid:
            raise InputError("the design space has no parameter")
        for name, vals in grid.items():
            if not vals:
                raise InputError(f"parameter {name!r} has no value")
            if len(set(vals)) != len(vals):
                raise InputError(f"parameter {name!r} lists a value twice")
        return cls(tuple(grid), tuple(tuple(v) for v in grid.values()))

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(len(v) for v in self.values)

    def designs(self) -> list[Design]:
        """Every design of the grid, in index order."""
        return list(itertools.product(*(range(n) for n in self.shape)))

    def params(self, d: Design) -> dict[str, float]:
        """The parameter values of design ``d``."""
        return {n: v[i] for n, v, i in zip(self.names, self.values, d, strict=True)}


def pareto_front(results: Mapping[Design, Sequence[float]]) -> set[Design]:
    """The designs whose objective vectors no other design dominates (minimisation).

    Two objectives: one sort and a sweep, O(n log n); more: a vectorised pairwise test in
    blocks (O(n^2) comparisons, n x block memory)."""
    if not results:
        return set()
    designs = list(results)
    f = np.asarray([results[d] for d in designs], dtype=float)
    if f.ndim != 2:
        raise InputError("every design needs the same number of objectives")
    n, k = f.shape
    keep = np.zeros(n, dtype=bool)
    if k == 2:
        order = np.lexsort((f[:, 1], f[:, 0]))  # by f1, then f2
        best_before = np.inf  # smallest f2 among strictly smaller f1
        i = 0
        while i < n:
            j = i
            f1 = f[order[i], 0]
            while j < n and f[order[j], 0] == f1:
                j += 1
            group = order[i:j]
            low = f[group[0], 1]  # the group's smallest f2 (sorted)
            if low < best_before:
                keep[group[f[group, 1] == low]] = True
            best_before = min(best_before, low)
            i = j
    else:
        block = max(1, 2_000_000 // max(1, n * k))
        for s in range(0, n, block):
            g = f[s : s + block, None, :]  # candidates x others x objectives
            dominated = (np.all(f[None] <= g, axis=2) & np.any(f[None] < g, axis=2)).any(axis=1)
            keep[s : s + block] = ~dominated
    return {designs[i] for i in np.flatnonzero(keep)}


class Sampler(Protocol):
    """Which designs to run next, given every finished design's objectives."""

    def next(self, results: Mapping[Design, Sequence[float]]) -> list[Design]: ...


class GridSampler:
    """Every design of the space, in one go."""

    def __init__(self, space: DesignSpace) -> None:
        self.space = space
        self._issued = False

    def next(self, results: Mapping[Design, Sequence[float]]) -> list[Design]:
        if self._issued:
            return []
        self._issued = True
        return self.space.designs()


class ActiveParetoSampler:
    """The coarse grid, then the fine neighbours of the coarse Pareto frontier (module doc)."""

    def __init__(self, space: DesignSpace, step: int = 2, rounds: int = 1) -> None:
        for name, v in (("coarse step", step), ("rounds", rounds)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise InputError(f"the {name} must be a whole number >= 1, got {v!r}")
        self.space = space
        self.step = step
        self.rounds = rounds
        self._done_rounds = 0
        self._issued: set[Design] = set()

    def next(self, results: Mapping[Design, Sequence[float]]) -> list[Design]:
        if not self._issued:
            coarse = [d for d in self.space.designs() if all(i % self.step == 0 for i in d)]
            self._issued.update(coarse)
            return coarse
        if any(d not in results for d in self._issued) or self._done_rounds >= self.rounds:
            return []  # wait for the issued runs, or done
        self._done_rounds += 1
        front = pareto_front({d: results[d] for d in self._issued})
        reach = self.step - 1
        new = set()
        for d in front:
            ranges = [
                range(max(0, i - reach), min(n, i + reach + 1))
                for i, n in zip(d, self.space.shape, strict=True)
            ]
            new.update(itertools.product(*ranges))
        new -= self._issued
        self._issued |= new
        return sorted(new)
