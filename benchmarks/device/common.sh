# Sourced by the device scripts (run from the repository root): the pinned corpus unpacked in
# $W/corpus, the work folder $W's virtual environment with libcst and click from .bench/peers,
# and h2dlint from the working tree laid out and compiled as installed (rules/ becomes
# h2dlint/rules) in $W/src.
bench_corpus() {  # the pinned corpus, unpacked into $W/corpus once per machine
  mkdir -p $W/corpus &&
    { [ -d $W/corpus/lightning-2.6.6 ] || xz -dc .bench/corpus.tar.xz | tar -xf - -C $W/corpus; }
}
h2dlint_venv() {
  [ -x $W/hv/bin/python ] && return 0
  python3 -m venv $W/hv &&
    $W/hv/bin/pip install -q --no-index --find-links .bench/peers libcst==1.8.6 click==8.1.8
}
h2dlint_src() {  # with its bytecode, as pip installs it (the host sets PYTHONDONTWRITEBYTECODE:
  # without this each run would compile ~150 modules, 0.35 s of its start-up)
  rm -rf $W/src && mkdir -p $W/src && cp -r h2dlint $W/src/ && rm -rf $W/src/h2dlint/rules &&
    cp -r rules $W/src/h2dlint/rules &&
    env -u PYTHONDONTWRITEBYTECODE $W/hv/bin/python -m compileall -q $W/src > /dev/null &&
    { [ ! -f $W/src/h2dlint/dataclass_code.py ] ||  # and the dataclasses' generated methods
      (cd $W/src && $W/hv/bin/python -m h2dlint.dataclass_code > /dev/null); }
}
