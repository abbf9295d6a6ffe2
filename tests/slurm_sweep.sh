#!/usr/bin/env bash
# The Slurm backend on a real Slurm: starts a single-node cluster on the loopback (munged,
# slurmctld and slurmd from Debian's packages, a slurm.conf generated in a temporary
# folder), submits a small sweep (Table 2: 2 replicates x 2 seeds) as a job array,
# cancels one array task and checks that `sweep run` resubmits only that cell, collects,
# and checks that the merged table equals the local backend's for the same session.
# Stops the daemons it started. Where it cannot start Slurm it fails saying why.
set -u
cli="$1"
fail() { echo "FAIL: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || fail "needs root to start munged, slurmctld and slurmd (running as uid $(id -u))"
for tool in munged slurmctld slurmd sbatch squeue scontrol scancel sinfo python3; do
  command -v "$tool" > /dev/null || fail "$tool is not installed (scripts/setup.sh installs slurmctld slurmd slurm-client munge)"
done

tmp=$(mktemp -d /tmp/lcs-slurm-test.XXXXXX)
chmod 755 "$tmp"
pids=()
cleanup() {
  scancel --quiet --user="$(id -un)" 2> /dev/null
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2> /dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT

host=$(hostname -s)
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ctld_port=$(free_port)
slurmd_port=$(free_port)
mkdir -p "$tmp/state" "$tmp/spool" "$tmp/munge" "$tmp/munge_key" "$tmp/log"
# munged wants its key private and its socket's folder open to all.
chmod 700 "$tmp/munge_key"
chmod 755 "$tmp/munge"
head -c 1024 /dev/urandom > "$tmp/munge_key/munge.key"
chmod 400 "$tmp/munge_key/munge.key"
# Slurm 22.05 has no auth/none: munge, with its own key and socket here.
munged -F --key-file="$tmp/munge_key/munge.key" --socket="$tmp/munge/munge.socket" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge/seed" \
  > "$tmp/log/munged.out" 2>&1 &
pids+=($!)
cat > "$tmp/slurm.conf" <<CONF
ClusterName=lcstest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$tmp/slurm.conf"
for i in $(seq 50); do [ -S "$tmp/munge/munge.socket" ] && break; sleep 0.1; done
[ -S "$tmp/munge/munge.socket" ] || fail "munged did not start: $(cat "$tmp/log/munged.out" "$tmp/log/munged.log" 2> /dev/null)"
slurmctld -D -f "$SLURM_CONF" > "$tmp/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" > "$tmp/log/slurmd.out" 2>&1 &
pids+=($!)
for i in $(seq 120); do
  [ "$(sinfo -h -o %t 2> /dev/null)" = "idle" ] && break
  sleep 0.5
done
[ "$(sinfo -h -o %t 2> /dev/null)" = "idle" ] ||
  fail "the Slurm node did not become idle: $(sinfo 2>&1; tail -5 "$tmp/log/slurmctld.out" "$tmp/log/slurmd.out")"
# Nothing listens beyond the loopback.
if command -v ss > /dev/null; then
  ss -ltnp | grep -E "slurm(ctld|d)" | grep -v "127.0.0.1:" && fail "a Slurm daemon listens beyond 127.0.0.1"
fi

"$cli" synthetic --replicates 2 --correction-iterations 100 --warm-start-steps 50 \
  --write-session "$tmp/table2.lcsession" > /dev/null || fail "--write-session"
"$cli" sweep plan "$tmp/table2.lcsession" --over seed=0..1 --out "$tmp/slurm_sweep" > /dev/null || fail "plan (slurm)"
"$cli" sweep plan "$tmp/table2.lcsession" --over seed=0..1 --out "$tmp/local_sweep" > /dev/null || fail "plan (local)"

# One cell at a time, so that cell 1 is still pending when it is cancelled.
start=$(date +%s.%N)
"$cli" sweep run "$tmp/slurm_sweep" --backend slurm --max-running 1 --partition debug --time 10:00 --cpus 1 \
  --no-follow > "$tmp/submit.out" 2>&1 || fail "submit: $(cat "$tmp/submit.out")"
for line in "--partition=debug" "--time=10:00" "--cpus-per-task=1"; do
  grep -qx -- "#SBATCH $line" "$tmp/slurm_sweep/slurm/sweep.sbatch" || fail "the sbatch script lacks #SBATCH $line"
done
job=$(sed -n 's/^submitted: job \([0-9]*\), cell(s) 0 1$/\1/p' "$tmp/submit.out")
[ -n "$job" ] || fail "no job array submitted: $(cat "$tmp/submit.out")"
scancel "${job}_1" || fail "scancel ${job}_1"
"$cli" sweep run "$tmp/slurm_sweep" --backend slurm > "$tmp/resume.out" 2>&1 || fail "resume: $(cat "$tmp/resume.out")"
end=$(date +%s.%N)
resubmitted=$(sed -n 's/^submitted: job \([0-9]*\), cell(s) \(.*\)$/\2/p' "$tmp/resume.out")
[ "$resubmitted" = "1" ] || fail "the resumed run submitted cell(s) '$resubmitted', not only the cancelled cell 1: $(cat "$tmp/resume.out")"
job2=$(sed -n 's/^submitted: job \([0-9]*\), cell(s) 1$/\1/p' "$tmp/resume.out")
grep -q "Slurm job ${job}_0 " "$tmp/slurm_sweep/logs/0000.log" || fail "cell 0 did not run (once) in job $job: $(cat "$tmp/slurm_sweep/logs/0000.log")"
grep -q "Slurm job ${job2}_1 " "$tmp/slurm_sweep/logs/0001.log" || fail "cell 1 did not rerun in job $job2"
echo "slurm backend: 2 cells (one cancelled and resubmitted) in $(python3 -c "print(round($end - $start, 1))") s"

start=$(date +%s.%N)
"$cli" sweep run "$tmp/local_sweep" --backend local -j 2 > "$tmp/local.out" 2>&1 || fail "local run: $(cat "$tmp/local.out")"
end=$(date +%s.%N)
echo "local backend: 2 cells in $(python3 -c "print(round($end - $start, 1))") s"

"$cli" sweep collect "$tmp/slurm_sweep" --csv "$tmp/slurm.csv" > "$tmp/collect_slurm.out" 2>&1 ||
  fail "collect (slurm): $(cat "$tmp/collect_slurm.out")"
"$cli" sweep collect "$tmp/local_sweep" --csv "$tmp/local.csv" > /dev/null 2>&1 || fail "collect (local)"
grep -q "^bbvi,corrected,cost,4," "$tmp/slurm.csv" || fail "the Slurm table lacks 4 runs per method: $(cat "$tmp/slurm.csv")"
# Every figure but the timings (metrics named *seconds) is the same on both backends.
grep -v seconds "$tmp/slurm.csv" > "$tmp/slurm_figures.csv"
grep -v seconds "$tmp/local.csv" > "$tmp/local_figures.csv"
cmp "$tmp/slurm_figures.csv" "$tmp/local_figures.csv" ||
  fail "the Slurm and local tables differ: $(diff "$tmp/slurm_figures.csv" "$tmp/local_figures.csv")"
# A failing cell on Slurm: reported with Slurm's word and its log, exit status 1.
"$cli" sweep plan "$tmp/table2.lcsession" --over seed=0..1 --out "$tmp/broken" > /dev/null || fail "plan (broken)"
echo '{"format": "lcstudio-session"}' > "$tmp/broken/cells/0001.lcsession"
"$cli" sweep run "$tmp/broken" --backend slurm > "$tmp/broken.out" 2>&1
[ $? -eq 1 ] || fail "a failed cell did not make the Slurm run exit 1: $(cat "$tmp/broken.out")"
grep -q "cell 0001 (seed=1): Slurm says FAILED (exit code 2:0); log: .*logs/0001.log" "$tmp/broken.out" ||
  fail "Slurm's word on the failed cell is missing: $(cat "$tmp/broken.out")"
grep -q "cell 1: failed (exit status 2); log:" "$tmp/broken.out" || fail "the failed cell is not listed: $(cat "$tmp/broken.out")"
grep -q "cells/0001.lcsession" "$tmp/broken/logs/0001.log" || fail "the failed cell's log lacks its error"
[ -f "$tmp/broken/results/0000.json" ] || fail "the good cell of the broken sweep has no results"
if [ -n "${LCS_SLURM_KEEP:-}" ]; then
  mkdir -p "$LCS_SLURM_KEEP" && cp -r "$tmp/slurm_sweep" "$tmp"/*.out "$tmp"/*.csv "$LCS_SLURM_KEEP/"
fi
echo "slurm_sweep: ok (job $job, cell 1 cancelled and rerun in job $job2; tables equal)"
