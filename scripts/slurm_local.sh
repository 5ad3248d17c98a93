#!/usr/bin/env bash
# A real single-node Slurm on localhost (Debian's slurm-wlm with munge), for
# trying memtune's job-array path without a cluster, and a smoke run through it.
#
#   scripts/slurm_local.sh            # install, start, smoke
#   scripts/slurm_local.sh install    # apt-get install slurm-wlm munge (as root, else with sudo)
#   scripts/slurm_local.sh start      # munged, slurmctld and slurmd with a config of this machine
#   scripts/slurm_local.sh smoke      # a 3-task job array and a job that depends on it; prints what they wrote
#   scripts/slurm_local.sh example MEMTUNE   # examples/slurm/submit.sh through it, modeled (no GPU), and waits
#   scripts/slurm_local.sh stop
#
# Everything Slurm writes (config, state, logs, job output) goes under
# $MEMTUNE_SLURM_DIR (default /tmp/memtune-slurm); the client commands find
# the config through SLURM_CONF, so the system's /etc/slurm is left alone:
#   export SLURM_CONF=/tmp/memtune-slurm/slurm.conf; squeue
# The daemons run as root (ProctrackType=proctrack/linuxproc, no cgroups),
# which containers allow; a shared machine should use its real Slurm instead.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${MEMTUNE_SLURM_DIR:-/tmp/memtune-slurm}"
export SLURM_CONF="$dir/slurm.conf"
sudo=""
[[ $(id -u) -eq 0 ]] || sudo=sudo

say() { echo "slurm_local: $*" >&2; }

install() {
  if command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null; then
    say "slurm-wlm and munge are installed"
    return
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq slurm-wlm munge
}

start_munge() {
  if munge -n </dev/null >/dev/null 2>&1; then return; fi
  [[ -s /etc/munge/munge.key ]] || $sudo mungekey --create --force
  $sudo mkdir -p /run/munge /var/log/munge /var/lib/munge
  $sudo chown munge:munge /run/munge /var/log/munge /var/lib/munge /etc/munge /etc/munge/munge.key
  $sudo chmod 0700 /etc/munge /var/log/munge /var/lib/munge
  $sudo chmod 0755 /run/munge
  $sudo chmod 0400 /etc/munge/munge.key
  $sudo runuser -u munge -- /usr/sbin/munged
  for _ in $(seq 50); do munge -n </dev/null >/dev/null 2>&1 && return; sleep 0.1; done
  say "munged did not start"; exit 1
}

write_config() {
  mkdir -p "$dir/state" "$dir/spool" "$dir/out"
  # slurmd -C prints this machine as Slurm sees it (CPUs, sockets, memory):
  # a node line that matches, so the node is not drained for a mismatch.
  local node
  node="$(slurmd -C | head -1)"
  cat > "$SLURM_CONF" <<CONF
# Written by memtune's scripts/slurm_local.sh: one node, one partition, no accounting.
ClusterName=memtune-local
SlurmctldHost=$(hostname -s)(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
MinJobAge=3600
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=local Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
}

start() {
  start_munge
  if scontrol ping 2>/dev/null | grep -q "is UP"; then
    say "slurmctld is already up ($SLURM_CONF)"
  else
    write_config
    $sudo slurmctld -f "$SLURM_CONF"
    $sudo slurmd -f "$SLURM_CONF"
  fi
  for _ in $(seq 100); do
    if sinfo -h -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
      say "up: $(sinfo -h -o '%P %D nodes %c CPUs %t')"
      return
    fi
    sleep 0.2
  done
  say "the node did not become idle; sinfo says: $(sinfo -h -o '%t %E' 2>&1)"
  say "logs: $dir/slurmctld.log $dir/slurmd.log"
  exit 1
}

stop() {
  for pid_file in "$dir/slurmd.pid" "$dir/slurmctld.pid"; do
    [[ -s $pid_file ]] && $sudo kill "$(cat "$pid_file")" 2>/dev/null || true
  done
  say "stopped slurmctld and slurmd (munged stays: other programs may use it)"
}

# Waits until none of the given jobs (array jobs included) is pending or running.
wait_for() {
  local deadline=$((SECONDS + ${WAIT_SECONDS:-600}))
  while squeue -h -j "$(IFS=,; echo "$*")" 2>/dev/null | grep -q .; do
    ((SECONDS < deadline)) || { say "jobs $* still queued after ${WAIT_SECONDS:-600} s"; squeue; return 1; }
    sleep 1
  done
}

# One line per job (array tasks expanded): id, name, state, exit code.
report() {
  local id
  for id in "$@"; do
    scontrol -o show job "$id" | sed -E 's/.*JobId=([0-9]+) (ArrayJobId=[0-9]+ ArrayTaskId=([0-9]+) )?JobName=([^ ]+).* JobState=([A-Z_]+).* ExitCode=([0-9:]+).*/  job \1 task \3 \4: \5, exit \6/'
  done
}

smoke() {
  local array after
  array=$(sbatch --parsable --array=0-2 --output="$dir/out/smoke_%A_%a.out" \
    --wrap 'echo "task $SLURM_ARRAY_TASK_ID of $SLURM_ARRAY_TASK_MIN-$SLURM_ARRAY_TASK_MAX (count $SLURM_ARRAY_TASK_COUNT) on $(hostname -s)"')
  after=$(sbatch --parsable --dependency="afterok:$array" --output="$dir/out/smoke_after_%j.out" \
    --wrap "echo \"after array $array: \$(cat $dir/out/smoke_${array}_*.out | wc -l) task outputs\"")
  say "submitted array $array (3 tasks) and job $after (afterok:$array)"
  wait_for "$array" "$after"
  report "$array" "$after"
  cat "$dir"/out/smoke_"$array"_*.out "$dir/out/smoke_after_$after.out"
  local failed
  failed=$({ scontrol -o show job "$array"; scontrol -o show job "$after"; } | grep -vc 'JobState=COMPLETED' || true)
  [[ $failed -eq 0 ]] || { say "$failed job(s) did not complete"; return 1; }
  say "smoke run passed: 3 array tasks and the dependent job completed"
}

example() {
  local memtune="${1:?usage: slurm_local.sh example PATH/TO/memtune}"
  local out="$dir/out/example"
  rm -rf "$out"
  local ids
  ids=$(MEMTUNE="$(realpath "$memtune")" OUT="$out" TARGET="${TARGET:-k20}" \
        PROBLEMS="${PROBLEMS:---n 64K;--n 1M}" "$root/examples/slurm/submit.sh")
  say "submitted: $ids"
  # shellcheck disable=SC2086
  wait_for $ids
  # shellcheck disable=SC2086
  report $ids
  ls -l "$out"
  grep -h "shard\|best:" "$out"/*.txt || true
  cat "$out"/merge_*.out 2>/dev/null || true
}

case "${1:-all}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  smoke) smoke ;;
  example) shift; example "$@" ;;
  all) install; start; smoke ;;
  *) echo "usage: $0 [install|start|smoke|example MEMTUNE|stop]" >&2; exit 2 ;;
esac
