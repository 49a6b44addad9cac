"""Tensor provenance: where a tensor expression's memory is, whether it is fresh or a view, and
whether it is contiguous (``core.Provenance``, reached through ``Provenance.of(context)``).

The package's parts, from the bottom: ``common`` (names, memo entry, visitors), ``base`` (the
analysis's state, the module's structure and the project around it, and the questions built on
facts: sequences, host data, copy targets), ``calls`` (the facts of calls) and ``core`` (the
facts of names, attributes and the rest; memoisation). ``views``, ``targets``, ``classes`` and
``cross_module`` beside it ask it through ``fact_source.FactSource``, never import it.
"""

from h2dlint.analysis.arguments import first_positional as first_positional
from h2dlint.analysis.arguments import host_named as host_named
from h2dlint.analysis.arguments import is_false as is_false
from h2dlint.analysis.arguments import is_true as is_true
from h2dlint.analysis.arguments import keyword as keyword
from h2dlint.analysis.arguments import positional as positional
from h2dlint.analysis.provenance.common import MAX_DEPTH as MAX_DEPTH
from h2dlint.analysis.provenance.common import annotation_is as annotation_is
from h2dlint.analysis.provenance.core import Provenance as Provenance
