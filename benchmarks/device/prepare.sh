#!/bin/bash
# Fills .bench/ (git-ignored) with what the device tool's machine needs to run the lint benchmark
# and the GPU verification offline: the corpus minus diffusers (its files are only read there),
# and wheels of libcst, click and the peers for that machine's Python (3.12, x86_64).
# Run from the repository root, after scripts/fetch_corpus.py has filled the corpus cache.
set -eu
CORPUS=${H2DLINT_CORPUS_DIR:-$HOME/.cache/h2dlint/corpus}
mkdir -p .bench/peers .whl
# Only the pinned versions of scripts/fetch_corpus.py (the cache also holds older releases that
# scripts/mine_fixes.py fetched): the device tool carries at most 64 MiB.
PINNED=$(python3 -c 'import sys; sys.path.insert(0, "scripts"); import fetch_corpus as f
print(" ".join(f"{n}-{v}" for n, v in f.PACKAGES.items() if n != "diffusers"))')
tar -C "$CORPUS" -cJf .bench/corpus.tar.xz $PINNED
grep -qx '/.bench/' .git/info/exclude || echo '/.bench/' >> .git/info/exclude
grep -qx '/.whl/' .git/info/exclude || echo '/.whl/' >> .git/info/exclude
# One download per tool: TorchFix pins an older libcst, so resolving them together fails.
for spec in "libcst==1.8.6 click==8.1.8" torchfix==0.7.0 fixit==2.2.1 ruff==0.17.6; do
  # shellcheck disable=SC2086  # a spec may name two packages
  pip download -q --dest .bench/peers --python-version 3.12 --platform manylinux_2_28_x86_64 \
    --platform manylinux2014_x86_64 --only-binary=:all: $spec
done
cp .bench/peers/libcst-1.8.6-*.whl .whl/
ls -la .bench .bench/peers
