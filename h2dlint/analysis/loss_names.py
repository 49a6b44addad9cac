"""Names that say a function computes a training loss: a loss runs once per batch (once per
micro-batch under gradient accumulation), so a sync in it, or in a helper it calls, waits on
every training step. :func:`hot_names.name_reason` asks.

A loss is named for what it computes: ``loss`` (or ``losses``) as the last word of the name
(``ppo_loss``, ``value_loss``, ``_dice_loss``, mmdet's ``loss`` of a head), or after a
computing verb first (``compute_policy_loss_vanilla``, ``calc_loss_terms``). Such functions are
called through a registry or a configured callable (verl's ``get_policy_loss_fn(mode)`` then
``policy_loss_fn(...)`` in the actor's update), so no caller the project index can follow makes
them hot; ``compute_loss`` alone was an entry point before (``hot_names.HOT_ENTRY_POINTS``).

Not a name that builds, picks or registers a loss (``build_loss``, ``make_loss``,
``register_loss``; ``get_``/``init_``/``set_`` first are dropped by ``hot_names`` before it
asks), nor one named for values bound for a log (``compute_loss_metrics``,
``loss_stats``: :func:`hot_names.metrics_name`), nor bookkeeping over an epoch or a history
(``epoch_loss``, ``average_loss``, ``best_loss``), nor a loss over validation or test data
(``_validation_loss``, ``eval_loss``: once per evaluation pass)."""

from __future__ import annotations

LOSS_WORDS = frozenset({"loss", "losses"})
# First words of a name that computes what follows it.
COMPUTING_FIRST_WORDS = frozenset({"compute", "calc", "calculate"})
# Words of names that make, pick or describe a loss rather than compute it
# (``build_loss``, ``loss_fn_factory``), or that keep loss values over steps for a report
# (``epoch_loss``, ``running_avg_loss``, ``best_loss``).
NOT_COMPUTING_WORDS = frozenset(
    {
        "build",
        "make",
        "create",
        "select",
        "choose",
        "configure",
        "factory",
        "registry",
        "type",
        "name",
        "epoch",
        "avg",
        "average",
        "running",
        "history",
        "best",
        "last",
        # bookkeeping of a loss computed elsewhere (lmdeploy's `append_ce_loss` of a request's
        # host outputs, `record_loss`, `print_loss`)
        "append",
        "accumulate",
        "record",
        "store",
        "save",
        "print",
        "plot",
        "log",
        "report",
        "reset",
        # a loss over the validation or test data, once per evaluation pass, not per training
        # batch (session 50: triage50b's cornac 3.0.1 `LETTER._validation_loss`, run once per
        # epoch for early stopping; triage50a's instructlab-training 0.16.2
        # `compute_validation_loss`, `main_ds.py:87`, whose own loop over the validation
        # batches, which runs the model, is still hot); "valid" alone may mean the valid tokens
        # of a batch
        "validation",
        "val",
        "eval",
        "evaluation",
        "evaluate",
        "test",
    }
)
LOSS_REASON = "`{}()` computes a loss, which runs once per training batch (its name says so)"


def loss_name(words: list[str]) -> bool:
    """Whether the words of a name (lower case, split at ``_``) name a loss computation."""
    if not words or NOT_COMPUTING_WORDS & set(words):
        return False
    if words[-1] in LOSS_WORDS:
        return True
    return words[0] in COMPUTING_FIRST_WORDS and not LOSS_WORDS.isdisjoint(words)


def loss_reason(name: str, words: list[str]) -> str | None:
    """Why ``name`` runs once per training batch when its words name a loss computation
    (``ppo_loss``, ``compute_policy_loss_vanilla``); None otherwise (``build_loss``)."""
    return LOSS_REASON.format(name) if loss_name(words) else None
