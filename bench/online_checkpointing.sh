#!/usr/bin/env bash
# Online against offline checkpointing (not a test: the table of docs/checkpointing.md, "Online checkpointing").
# For n = 100, 10^3, ..., nmax and a few slot counts s: forward step evaluations per step of offline revolve
# (n + t(n,s), the lower bound for any schedule with s slots) and of the online schedule stopped at the same n
# (AdjRevolveOnlineForwardCount: the forward placement replayed step by step, the intervals costed by revolve's
# closed form; tests/revolve checks that this formula equals the executed schedule up to n = 10^6). The same sweep
# costs every n up to nmax, so the last column gives the worst ratio over each decade (about 9 s for the default).
# usage: bench/online_checkpointing.sh [nmax (default 1000000)] [slots (default 10,20,50)]
set -euo pipefail
source "$(dirname "$0")/../jobs/lib/adjsim-env.sh"
adjsim_build
"$ADJSIM_BUILD"/tests/revolve/online_ratio_table -nmax "${1:-1000000}" -scan_max "${1:-1000000}" -slots "${2:-10,20,50}"
