"""The state of call-site specialisations (:mod:`~h2dlint.analysis.provenance.specialised`)
that one analysis of a module keeps: the facts its specialised parameters hold, the returns it
recomputed for calls with host arguments, those being computed, and how many fresh analyses
deep it is."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from h2dlint.analysis.facts import Fact, Where

SpecialisedKey = tuple[cst.FunctionDef, frozenset[tuple[str, Where]]]


@dataclass
class Specialisation:
    parameters: dict[tuple[cst.FunctionDef, str], Fact] = field(default_factory=dict)
    nested: int = 0
    returns: dict[SpecialisedKey, Fact] = field(default_factory=dict)
    active: set[SpecialisedKey] = field(default_factory=set)
