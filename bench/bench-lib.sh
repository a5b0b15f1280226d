# shellcheck shell=bash
# Shared by the bench/ scripts (sourced, not run): packages, the bench build, the report file and its
# header.  After `bench_setup <name> [extra Debian packages...]`:
#   root, exe (the adjsim executable), report (bench/results/<name>-<date>.txt), work (a temporary
#   directory, removed at exit unless BENCH_KEEP=1), say (echo to stdout and the report), load (the
#   1-minute load average).  `bench_header <title>` writes the first lines of the report.
# Helpers for timed runs: run, ev (a -log_view event), rss (peak memory), calc, best.
# Environment: ADJSIM_BUILD (default <repo>/build-bench; built with jobs/lib/adjsim-env.sh), BENCH_KEEP.

bench_setup() {
  local name=$1 missing
  shift
  bench_name=$name
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  export ADJSIM_BUILD=${ADJSIM_BUILD:-$root/build-bench}
  # shellcheck source=../jobs/lib/adjsim-env.sh
  source "$root/jobs/lib/adjsim-env.sh"
  adjsim_ensure_packages
  missing=$(adjsim_missing_packages "$@")
  if [ -z "$missing" ]; then :; elif [ "$(id -u)" -eq 0 ]; then
    echo "$name: installing $missing"
    # shellcheck disable=SC2086
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
  else
    echo "$name: needs the Debian packages $missing (apt-get install $missing, as root)" >&2
    exit 1
  fi
  if ! adjsim_build; then
    [ -x "$ADJSIM_BUILD/adjsim" ] || { echo "$name: adjsim build failed" >&2; exit 1; }
    echo "$name: warning: rebuild failed, using the existing $ADJSIM_BUILD/adjsim" >&2
  fi
  adjsim_mpi_env
  exe=$ADJSIM_BUILD/adjsim
  mkdir -p "$root/bench/results"
  report=$root/bench/results/$name-$(date +%Y%m%d-%H%M%S).txt
  work=$(mktemp -d "/tmp/$name.XXXXXX")
  [ "${BENCH_KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
}

say() { echo "$*" | tee -a "$report"; }
load() { cut -d' ' -f1 /proc/loadavg; }

# The report's first lines: title, machine, adjsim commit and build, versions, load.
bench_header() {
  local commit dirty
  commit=$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
  dirty=$(git -C "$root" status --porcelain --untracked-files=no -- src include CMakeLists.txt 2>/dev/null | wc -l)
  say "== $1"
  say "date: $(date -Is)   host: $(hostname)   cores: $(nproc)   cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1)"
  say "adjsim: commit $commit$([ "$dirty" -gt 0 ] && echo " (+ $dirty locally modified files in src/include)"), build $ADJSIM_BUILD," \
    "PETSc $(pkg-config --modversion PETSc 2>/dev/null || echo '?'), $(mpiexec --version 2>&1 | head -1)"
  say "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)$(awk -v n="$(nproc)" '$1 > n / 2 { print " (warning: other work on the machine; each run line shows the 1-minute load before it)" }' /proc/loadavg)"
}

# run <name> <np> <adjsim options...>: one run under /usr/bin/time -v with -log_view into $work/<name>/
# (bench_setup's $exe; the caller's name for messages is $bench_name)
run() {
  local name=$1 np=$2 d=$work/$1
  shift 2
  mkdir -p "$d"
  load >"$d/load.txt"
  if ! (cd "$d" && /usr/bin/time -v -o "$d/time.txt" mpiexec -n "$np" --bind-to none "$exe" "$@" -quiet \
    -output "$d/run.h5" -log_view ":$d/logview.txt" >"$d/out.txt" 2>&1); then
    echo "$bench_name: run $name failed: $(tail -3 "$d/out.txt")" >&2
    return 1
  fi
}
# ev <name> <event>: "<count> <max time over ranks [s]>" of a -log_view event
ev() { awk -v e="$2" '$1 == e { print $2, $4; found = 1 } END { if (!found) print 0, 0 }' "$work/$1/logview.txt"; }
# rss <name>: peak resident set size [kB] (the largest process: the adjsim rank for one rank)
rss() { sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/$1/time.txt"; }
calc() { awk "BEGIN { printf \"$1\n\", $2 }"; }
# median <values...>: the median (the lower middle value of an even count), ignoring empty and 0, with
# BENCH_DECIMALS decimals (default 2)
median() { printf '%s\n' "$@" | awk 'NF && $1 != 0' | sort -g | awk -v d="${BENCH_DECIMALS:-2}" '{ v[NR] = $1 } END { if (NR) printf "%.*f\n", d, v[int((NR + 1) / 2)] }'; }
# parameter_values <run name> <block>: the values of /parameters/<block> of run's run file, comma-separated with 17
# digits (to pass a run's result to the next run's option)
parameter_values() {
  "$ADJSIM_PYTHON" -c "import h5py; print(','.join('%.17g' % v for v in h5py.File('$work/$1/run.h5', 'r')['parameters/$2'][()]))"
}
# best <values...>: the minimum, ignoring empty arguments
best() { printf '%s\n' "$@" | awk 'NF && ($1 < m || m == "") { m = $1 } END { print m }'; }
