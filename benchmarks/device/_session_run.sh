set -u
R=$PWD
mkdir -p /tmp/base-repo && tar -xf .bench/base.tar -C /tmp/base-repo && ln -sfn $R/.bench /tmp/base-repo/.bench
(cd /tmp/base-repo && OUT=$OUT/base bash benchmarks/device/precommit.sh > /dev/null 2>&1; echo base rc $?)
OUT=$OUT/new bash benchmarks/device/precommit.sh > /dev/null 2>&1; echo new rc $?
grep -h "all-cores\|floor 16\|no-index" $OUT/base/precommit/times.txt | sed 's/^/BASE /'
grep -h "all-cores\|floor 16\|no-index" $OUT/new/precommit/times.txt | sed 's/^/NEW /'
TREES=lightning RUNS=3 NAME=cold-lightning timeout 280 bash benchmarks/device/lint.sh --no-peers > /dev/null 2>&1; echo lint rc $?
tail -40 $OUT/cold-lightning.txt
