#!/usr/bin/env bash
# jobs/slurm/design-sweep.sbatch outside Slurm (ADJSIM_MEMBER=i, as a user tries a sweep before submitting it)
# and postprocess/adjsim_gather_designs.py:
#   1. three members (target C_L 0.1, 0.2, 0.3 of tests/slurm/sweep.yaml) each optimize into member-NNNN/;
#   2. a member run again is not rerun (its design.h5 is complete for the same line); an index beyond the
#      parameter file is refused naming the file's member count, exit 2;
#   3. the gathered table has one row per member, the swept value as a column, and each member's final
#      constraint value equal to what adjsim printed for it ("optimize: final constraint lift = ...");
#   4. the Pareto set is a subset of the table, no member dominates one of its rows, and every feasible member
#      outside it is dominated by one of its rows;
#   5. a member stopped by a signal (design-restart.h5 left) makes the gather fail naming it, unless
#      --allow-missing, which leaves it out.
# usage: design_sweep_local.sh <adjsim> <python with h5py> <repository>
set -u -o pipefail
adjsim=$1 python=$2 root=$3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1
export ADJSIM_BIN=$adjsim ADJSIM_LAUNCHER=mpiexec ADJSIM_NP=1 ADJSIM_ROOT=$root
fail() { echo "FAIL: $*"; exit 1; }
rm -rf sweep && mkdir sweep && cd sweep || fail "cannot create sweep/"
printf '# target lift\n-optimize_constraint_lift_value 0.1\n\n-optimize_constraint_lift_value 0.2\n-optimize_constraint_lift_value 0.3\n' >targets.txt
member() { ADJSIM_MEMBER=$1 bash "$root/jobs/slurm/design-sweep.sbatch" targets.txt "$root/tests/slurm/sweep.yaml" out -tao_max_it 1; }

# 1. the members
for i in 0 1 2; do
  member "$i" >"m$i.log" 2>&1 || { cat "m$i.log"; fail "member $i exited $?"; }
  [ -f "out/member-000$i/design.h5" ] || { cat "m$i.log"; fail "member $i wrote no design.h5"; }
done
# 2. not rerun; index out of range
before=$(stat -c %Y.%s out/member-0000/design.h5)
member 0 >again.log 2>&1 || { cat again.log; fail "a complete member run again exited nonzero"; }
grep -q "is complete, not run again" again.log || { cat again.log; fail "a complete member was not recognized"; }
[ "$(stat -c %Y.%s out/member-0000/design.h5)" = "$before" ] || fail "a complete member's design.h5 was rewritten"
member 3 >beyond.log 2>&1
rc=$?
[ "$rc" -eq 2 ] || { cat beyond.log; fail "array index 3 of a 3-member file exited $rc, expected 2"; }
grep -q "has only 3 member line(s)" beyond.log || { cat beyond.log; fail "the refusal does not give the member count"; }
# 3.-4. gather and check
"$python" "$root/postprocess/adjsim_gather_designs.py" out --pareto objective:min,lift:max >gather.log 2>&1 ||
  { cat gather.log; fail "adjsim_gather_designs.py failed"; }
cat gather.log
"$python" - <<'PY' || fail "the gathered table is wrong"
import csv, re, sys
rows = list(csv.DictReader(open("out/design-sweep.csv")))
front = list(csv.DictReader(open("out/design-pareto.csv")))
bad = []
if [r["member"] for r in rows] != ["member-0000", "member-0001", "member-0002"]:
    bad.append(f"members {[r['member'] for r in rows]}")
for i, r in enumerate(rows):
    if float(r["optimize_constraint_lift_value"]) != [0.1, 0.2, 0.3][i]:
        bad.append(f"row {i}: swept value {r['optimize_constraint_lift_value']}")
    printed = [l for l in open(f"m{i}.log") if l.startswith("optimize: final constraint lift")]
    m = re.search(r"=\s*(\S+)", printed[-1]) if printed else None
    if not m or abs(float(m.group(1)) - float(r["lift"])) > 1e-9 * max(1.0, abs(float(r["lift"]))):
        bad.append(f"row {i}: lift {r['lift']} but adjsim printed {printed[-1:] }")
    for col in ("objective", "iterations", "stop_reason", "max_violation", "body_alpha[0]", "body_shape[3]"):
        if r.get(col, "") == "":
            bad.append(f"row {i}: no {col}")
key = lambda r: (float(r["objective"]), -float(r["lift"]))
dom = lambda a, b: all(x <= y for x, y in zip(key(a), key(b))) and key(a) != key(b)
names = [r["member"] for r in front]
if not front or any(n not in [r["member"] for r in rows] for n in names):
    bad.append(f"Pareto set {names} not a non-empty subset of the table")
for p in front:
    if any(dom(r, p) for r in rows):
        bad.append(f"{p['member']} in the Pareto set is dominated")
for r in rows:
    if r["member"] not in names and float(r["max_violation"]) <= 1e-6 and not any(dom(p, r) for p in front):
        bad.append(f"{r['member']} is feasible, outside the Pareto set and not dominated")
print("\n".join(bad) if bad else f"table and Pareto set ok ({len(rows)} rows, {len(front)} Pareto)")
sys.exit(1 if bad else 0)
PY
# 5. a stopped member
touch out/member-0001/design-restart.h5
"$python" "$root/postprocess/adjsim_gather_designs.py" out >stopped.log 2>&1 && { cat stopped.log; fail "gathering a sweep with a stopped member exited 0"; }
grep -q "member-0001: stopped" stopped.log || { cat stopped.log; fail "the gather does not name the stopped member"; }
"$python" "$root/postprocess/adjsim_gather_designs.py" out --allow-missing -o partial.csv >partial.log 2>&1 ||
  { cat partial.log; fail "--allow-missing failed"; }
[ "$(grep -c '^member-' partial.csv)" -eq 2 ] || { cat partial.csv; fail "--allow-missing kept $(grep -c '^member-' partial.csv) rows, expected 2"; }
echo "ok: design sweep of 3 members, gathered, Pareto set checked, stopped member refused"
