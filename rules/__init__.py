"""h2dlint's rules, one module each. Installed as ``h2dlint.rules``; the registry imports every
module here and collects the :class:`h2dlint.rule.Rule` subclasses it defines."""
