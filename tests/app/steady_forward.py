"""A forward run stopped by -steady_tol (issue 16): its run file must say where it stopped, consistently.
usage: steady_forward.py <run file> <Tmax> <N> <output interval>
Checks: root attributes final_step < N, final_time = final_step dt, stop_reason = steady_tol; the output steps are
0, interval, 2 interval, ... and the final step (its time final_time); the /restart state is the final step."""
import sys
import h5py

path, tmax, nmax, interval = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
dt = tmax / nmax
with h5py.File(path, "r") as f:
    a = f["/"].attrs
    n = int(a["final_step"][0])
    errors = []
    if a["stop_reason"] != b"steady_tol" or not 0 < n < nmax:
        errors.append(f"stop_reason {a['stop_reason']!r} at step {n} of {nmax}: not stopped by -steady_tol")
    if a["final_time"] != n * dt:
        errors.append(f"final_time {a['final_time']!r} != {n} * dt = {n * dt!r}")
    steps = [int(s) for s in f["/fields/step"][:]]
    want = list(range(0, n, interval)) + [n]
    if steps != want:
        errors.append(f"output steps {steps} != {want}")
    if f["/fields/time"][-1] != n * dt:
        errors.append(f"last output time {f['/fields/time'][-1]!r} != {n * dt!r}")
    r = f["/restart"].attrs
    if int(r["step"]) != n or r["time"] != n * dt:
        errors.append(f"/restart holds step {r['step']} time {r['time']}, not the final step {n}")
for e in errors:
    print("FAIL:", e)
print(f"run stopped at step {n} of {nmax}: {len(errors)} problem(s)")
sys.exit(1 if errors else 0)
