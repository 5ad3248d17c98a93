#!/usr/bin/env bash
# Tunes a kernel as N shards, one after another, and as one run, joins the
# shards with `memtune merge`, and checks that the merged recording holds
# exactly the single run's candidates (each once) and the same best, within a
# tolerance for measured noise: sharding must not change what a run finds
# (scripts/gpu_check.sh shard runs it for fdtd as 4 shards).
#
#   scripts/shard_check.sh [--memtune PATH] [--shards N] [--tolerance 0.03] [--out DIR] -- KERNEL [ARGS...]
#
#   scripts/shard_check.sh -- fdtd                          # measured on the local GPU (H100: about twice the grid)
#   scripts/shard_check.sh -- aos_soa --n 1M --target k20   # modeled, no GPU: times are exact, tolerance 0
#
# Writes shard_K.json / whole.json / merged.json (recordings) and their tables under --out
# (default: $OUT, else a temporary folder) and prints a short table last.
# Exit 0 when every check passes.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
memtune="$root/build/cli/memtune"
shards=4
tolerance=0.03
out="${OUT:-}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --memtune) memtune="$2"; shift 2 ;;
    --shards) shards="$2"; shift 2 ;;
    --tolerance) tolerance="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "shard_check.sh: unknown option $1 (usage in the header)" >&2; exit 2 ;;
  esac
done
[[ $# -gt 0 ]] || { echo "shard_check.sh: name a kernel after --, e.g. -- fdtd" >&2; exit 2; }
[[ -x $memtune ]] || { echo "shard_check.sh: $memtune not built (cmake --build build --target memtune_cli)" >&2; exit 2; }
[[ -n $out ]] || out="$(mktemp -d)"
mkdir -p "$out"

run() { # name, extra args...
  local name="$1"; shift
  local started=$SECONDS
  # Shards must not come from a surrounding job array: --shard 1/1 for the whole run.
  "$memtune" "${kernel_args[@]}" -q --record "$out/$name.json" "$@" > "$out/$name.txt" 2> "$out/$name.err"
  echo "$name: $((SECONDS - started)) s" >&2
}
kernel_args=("$@")
for ((k = 1; k <= shards; ++k)); do run "shard_$k" --shard "$k/$shards"; done
run whole --shard 1/1
shard_files=()
for ((k = 1; k <= shards; ++k)); do shard_files+=("$out/shard_$k.json"); done
"$memtune" merge "${shard_files[@]}" -o "$out/merged.json" > "$out/merge.txt"
cat "$out/merge.txt" >&2

python3 - "$out" "$shards" "$tolerance" <<'PY'
import json, sys
out, shards, tolerance = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
def trials(name):
    with open(f"{out}/{name}.json") as f:
        return [(json.dumps(t["config"], sort_keys=True), t) for t in json.load(f)["trials"]]
def best(ts):
    ok = [(t["time_s"], c) for c, t in ts if t.get("status") == "ok"]
    return min(ok) if ok else (None, None)
whole = trials("whole")
parts = [trials(f"shard_{k}") for k in range(1, shards + 1)]
merged = trials("merged")
union = [c for p in parts for c, _ in p]
checks = []
checks.append(("no candidate in two shards", len(union) == len(set(union)), f"{len(union)} recorded, {len(set(union))} distinct"))
checks.append(("merged holds the single run's candidates, each once",
               sorted(c for c, _ in merged) == sorted(c for c, _ in whole), f"{len(merged)} vs {len(whole)}"))
checks.append(("merged holds the shards' results", sorted((c, t.get("time_s"), t["status"]) for c, t in merged) ==
               sorted((c, t.get("time_s"), t["status"]) for p in parts for c, t in p), "times and statuses"))
(bw, cw), (bs, cs) = best(whole), best(merged)
same = cw == cs
close = bw is not None and bs is not None and abs(bs - bw) <= tolerance * bw
checks.append(("same best, or within tolerance", same or close,
               f"single {cw} {bw * 1e6 if bw else float('nan'):.2f} us; merged {cs} {bs * 1e6 if bs else float('nan'):.2f} us"))
print(f"\nshard check ({shards} shards): sizes " + ", ".join(str(len(p)) for p in parts) + f" of {len(whole)}")
for name, passed, detail in checks:
    print(f"  {'PASS' if passed else 'FAIL'}  {name}: {detail}")
sys.exit(0 if all(p for _, p, _ in checks) else 1)
PY
