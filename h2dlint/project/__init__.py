"""The project index: what one file's analysis needs to know about the other modules of its
project (classes and their attributes, functions' returns), found through its imports.

A layer of its own below the analysis: the layout (which module lives in which file) is built in
the main process from the paths being checked; the modules' facts are computed lazily, in the
process that asks, from the modules that a file's analysis actually consults, and each consulted
module is recorded so that the result cache can tell when another file's edit changes a verdict.
"""
