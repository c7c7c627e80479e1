#!/usr/bin/env bash
# Regenerate the Cobalt Qsim golden files (see README.md).
#   benchmarks/cobalt_qsim/run_all.sh COBALT_LIB [WORKDIR]
# COBALT_LIB: a directory whose entry "Cobalt" is Cobalt's src/lib at commit 20bbed61.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
lib="$1"
work="${2:-$(mktemp -d)}"
dest="$repo/tests/coupled/data/cobalt"
py3="$repo/.venv/bin/python"
mkdir -p "$dest"
"$py3" "$here/make_inputs.py" "$work/inputs" --seed 1
for bg in hold yield; do
  for cl in hold yield; do
    TZ=UTC PYENV_VERSION=2.7.18 python2 "$here/run_qsim.py" "$lib" "$work/inputs" \
      "$work/out_${bg}_${cl}" "$bg" "$cl" 0.25 > "$work/out_${bg}_${cl}.txt"
    "$py3" "$here/qsim_to_csv.py" "$work/out_${bg}_${cl}" "$dest/qsim_${bg}_${cl}.csv"
  done
done
cp "$work/inputs/jobs.csv" "$dest/jobs.csv"
# the pairs Qsim made (init_mate_job_dict_by_ratio, 0.25): Blue Gene job, cluster job
{ echo "bg,cluster"; tr ':' ',' < "$work/out_hold_hold/qsim-Intrepid-run-mates.log"; } \
  > "$dest/mates.csv"
printf 'midplanes,cluster_nodes\n%s,%s\n' \
  "$(grep -c '<Partition ' "$work/inputs/partitions.xml")" \
  "$(wc -l < "$work/inputs/hostfile")" > "$dest/machines.csv"
echo "golden files in $dest (work dir $work)"
