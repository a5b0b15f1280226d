#!/usr/bin/env bash
# A forward run stopped by SIGUSR1 mid-run must exit with status 85 after writing its restart
# file, leave its run file as .partial, and, continued with -restart, end bit for bit where an
# uninterrupted run ends.
# usage: interrupt.sh <mpiexec> <np> <adjsim> <python> <compare.py>
set -u
mpiexec=$1; np=$2; adjsim=$3; python=$4; compare=$5
# An explicit initial blob: without one the state is zero throughout (the default initial field is zero), and the
# bit-for-bit comparison of two zero final states below would pass whatever the restart did.
case="-transport_grid 192,192 -transport_steps 6000 -transport_final_time 0.5 -quiet -restart_interval 200"
case="$case -transport_initial_blobs 0.5,0.45,0.12,1.0"
tag=int_np$np
rm -f $tag-*.h5* $tag.h5*
$mpiexec -n $np --oversubscribe $adjsim $case -output $tag-a.h5 > $tag-a.log 2>&1 &
pid=$!
for i in $(seq 1 200); do [ -e $tag-a.h5.partial ] && break; sleep 0.05; done
sleep 0.3
kill -USR1 $pid
wait $pid; rc=$?
cat $tag-a.log
[ $rc -eq 85 ] || { echo "FAIL: interrupted run exited $rc, expected 85"; exit 1; }
[ -e $tag-a-restart.h5 ] || { echo "FAIL: no restart file $tag-a-restart.h5"; exit 1; }
[ -e $tag-a.h5 ] && { echo "FAIL: an interrupted run left a complete-looking $tag-a.h5"; exit 1; }
$mpiexec -n $np --oversubscribe $adjsim $case -output $tag-b.h5 -restart $tag-a-restart.h5 || { echo "FAIL: continuation failed"; exit 1; }
$mpiexec -n $np --oversubscribe $adjsim $case -output $tag-c.h5 || { echo "FAIL: uninterrupted run failed"; exit 1; }
$python $compare $tag-b.h5 $tag-c.h5 --groups /restart --exact || { echo "FAIL: continued run differs from the uninterrupted one"; exit 1; }
echo "ok: interrupted at $(grep -o 'after step [0-9]*' $tag-a.log), continued bit for bit"
