#!/usr/bin/env bash
# The project's GPU check, on a machine with an NVIDIA GPU, in steps that each
# fit one device call (10 minutes); a short table is printed last.
#   scripts/gpu_check.sh [STEP ...]          (default: every step, in this order)
# Steps:
#   build      configure and build everything (CLI, worker, GPU tests, examples, benches)
#   tests      the GPU test suite (every template's candidates verified at odd sizes, the
#              launcher, the fault corpus, the flushes, the worker)
#   catalogue  every template's whole grid at its catalogue sizes and the small sizes against
#              the copy ceiling, the same-size copy and cuBLAS (bench/catalogue_tuning.sh);
#              the recordings named like bench/data's (<gpu>_<space>.json), then the model
#              and the cross-GPU transfer against them (memtune_gpu_validation)
#   cost       the filter grid's tuning time, cold and warm compile cache (bench/filter_tuning.sh)
#   compile    memtune_compile_bench --gpu: compile / measure / overhead per candidate of the
#              example --spec kernels and a 200-candidate cooperative-groups kernel
#   launcher   scripts/launcher_gpu_check.sh (user kernels, apps, start-up cost)
#   realkernels  memtune tune --spec on examples/kernels' real-kernel examples (half2 axpy, the
#              padded FDTD3d-style stencil, the partial-sums reduction for float and int, the
#              whole-program transpose with #define tunables): one row each, candidates verified
#              of those run, the best configuration, GB/s, % of the copy ceiling, wall time
#   transfer   bench/spec_transfer.sh: the example kernels' grids on this GPU (recorded in
#              bench/data/spec, copied to $OUT/spec), bayes from their model section and
#              from the other GPUs' recordings there against a flat prior, and, for the
#              other GPUs' recordings, the model's pick and the transferred pick
#   isolation  scripts/isolation_gpu_check.sh (fault corpus, watchdog, overhead, kill -9 + resume)
#   shard      scripts/shard_check.sh -- fdtd (4 shards merged against one run)
#   report     scripts/report_gpu_check.sh (report HTML, progress line)
#   sanitize   scripts/sanitize_templates.sh: compute-sanitizer's four tools over every built-in
#              template's whole space at small odd sizes (SAMPLE=48 for a seeded sample;
#              TEMPLATES="filter fdtd" for some, ONLY="staging=direct" for one variant)
#   devices    scripts/devices_gpu_check.sh (>= 2 GPUs: fdtd and filter grids and wide_scale on
#              1, 2, 4, ... GPUs with each run's set-up, batch bayes against sequential; on 1 GPU: skipped)
#   searchspace  bench/search/wide_stencil's whole space (106304 configurations) recorded on every
#              GPU of the host, as in bench/data/spec (not in the default list: about 6 minutes on
#              two H200s; a call cut at its limit is resumed by the same step, from the journal)
#   energy     scripts/energy_gpu_check.sh: each template at its catalogue size tuned for energy,
#              the time-best and the energy-best with their times and joules per launch
#              (not in the default list: run it twice, in separate calls, for repeatability;
#              ENERGY_PREVIOUS=<an earlier call's OUT>/energy compares with that call)
#   sweep      scripts/sweep_gpu_check.sh: per template and per example --spec kernel
#              (bench/sweep/sizes.sh; TEMPLATES="filter" for some), a bayes
#              sweep of 8 sizes saved to a store, then the whole grid at those sizes and 4 between;
#              the launcher's choice (memtune profile pick) within 5 % of each swept size's best,
#              10 % in between; bench/sweep/sweep_cost.sh's figures come from the same runs
#   probes     memtune probe, the model against this run's probe spaces, the filter's bank model
#              against ncu's counters
# Environment: BUILD (default build-gpu), OUT (default gpu-check-out); logs and JSON under $OUT,
# each step's rows in $OUT/<step>.table.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build-gpu}
out=${OUT:-gpu-check-out}
mkdir -p "$out"
steps=("$@")
[ ${#steps[@]} -eq 0 ] && steps=(build tests catalogue cost compile launcher realkernels transfer isolation shard sweep report sanitize probes devices)
memtune="$build/cli/memtune"
name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
case $name in
  *H200*) gpu=h200 ;;
  *H100*) gpu=h100 ;;
  *) gpu=$(echo "${name:-unknown}" | tr 'A-Z ' 'a-z_') ;;
esac
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem --format=csv >"$out/gpu.txt" 2>&1
row() { echo "| $1 | $2 |" >>"$out/$step.table"; }
last_table() { grep '^|' "$1" | grep -v '^| *check *|\|^|---\|^| *step *|' || true; } # a sub-script's rows
# A sub-script's fixed-width table (a header line starting "check  ", columns two spaces apart) as rows.
columns_table() { sed -n '/^check  /,$p' "$1" | tail -n +2 | grep -v '^$' | sed -E 's/^ +//; s/ {2,}/ | /g; s/^/| /; s/$/ |/' || true; }
# A sub-script's verdict lines ("  PASS  what: detail") as rows.
verdict_rows() { sed -nE 's/^  (PASS|FAIL)  ([^:]*): (.*)$/| \2 | \1: \3 |/p' "$1" || true; }

for step in "${steps[@]}"; do
  : >"$out/$step.table"
  start=$SECONDS
  echo "== $step ($name)"
  case $step in
    build)
      cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >"$out/cmake.log" 2>&1 || { tail -30 "$out/cmake.log"; exit 1; }
      # What runs on the GPU (the CPU suites belong to scripts/test.sh).
      cmake --build "$build" -j "$(nproc)" --target memtune_cli memtune_worker memtune_gpu_tests memtune_filter_app \
        memtune_dot_app memtune_startup_bench memtune_compile_bench memtune_model_validation memtune_gpu_validation memtune_sanitize_runner \
        >"$out/build.log" 2>&1
      status=$?
      grep -E "error" "$out/build.log" | head -20
      row "build" "exit $status in $((SECONDS - start)) s"
      [ $status -eq 0 ] || exit 1 ;;
    tests)
      "$build/tests/memtune_gpu_tests" >"$out/gpu_tests.log" 2>&1
      status=$?
      grep -E "ERROR|FATAL|TEST CASE" "$out/gpu_tests.log" | head -40
      tail -4 "$out/gpu_tests.log"
      row "GPU tests" "exit $status: $(grep -E 'test cases' "$out/gpu_tests.log" | sed 's/\[doctest\] //'); $(grep -E 'assertions' "$out/gpu_tests.log" | sed 's/\[doctest\] //'), $((SECONDS - start)) s" ;;
    sweep)
      scripts/sweep_gpu_check.sh "$memtune" "$out/sweep" >"$out/sweep.txt" 2>&1
      status=$?
      cat "$out/sweep.txt"
      grep '^|' "$out/sweep.txt" | grep -v '^| template \|^|---' >>"$out/$step.table"
      row "sweep" "exit $status in $((SECONDS - start)) s" ;;
    catalogue)
      bench/catalogue_tuning.sh "$memtune" "$out/catalogue" >"$out/catalogue.txt" 2>&1
      grep '^==' "$out/catalogue.txt"
      grep '^|' "$out/catalogue.txt" | grep -v '^| template run\|^|---' >>"$out/$step.table"
      # bench/data's names for the grids the model and the search benchmark read.
      mkdir -p "$out/data"
      for pair in filter_16M:filter_16M aos_soa_read:aos_soa_read_16M aos_soa_write:aos_soa_write_16M \
                  matvec_col:matvec_col_8192 matvec_row:matvec_row_8192 fdtd_512x512x256_r4:fdtd_512x512x256_r4 \
                  transpose_4096:transpose_4096x4096 transpose_4096x3001:transpose_4096x3001 \
                  transpose_3001x4096:transpose_3001x4096; do
        [ -f "$out/catalogue/${pair%%:*}_record.json" ] && cp "$out/catalogue/${pair%%:*}_record.json" "$out/data/${gpu}_${pair##*:}.json"
      done
      # The model and the transfer: bench/data's recordings of other GPUs plus this run's.
      mkdir -p "$out/validation"
      for f in bench/data/catalogue/h1*_*.json bench/data/catalogue/h2*_*.json; do
        case $f in *probe*) ;; *) [ -f "$out/data/$(basename "$f")" ] || cp "$f" "$out/validation/" ;; esac
      done
      cp "$out"/data/*.json "$out/validation/" 2>/dev/null
      "$build/bench/model/memtune_gpu_validation" --data "$out/validation" >"$out/gpu_validation.txt" 2>&1
      cat "$out/gpu_validation.txt"
      row "model and transfer on this GPU (memtune_gpu_validation)" "see gpu_validation.txt: $(grep -c . "$out/gpu_validation.txt") lines" ;;
    cost)
      bench/filter_tuning.sh "$memtune" "$out/cost" >"$out/cost.txt" 2>&1
      status=$?
      grep -v '^|' "$out/cost.txt" | tail -5
      last_table "$out/cost.txt" >>"$out/$step.table"
      row "filter tuning cost" "exit $status" ;;
    compile)
      "$build/bench/compile/memtune_compile_bench" --gpu >"$out/compile.txt" 2>&1
      status=$?
      cat "$out/compile.txt"
      row "compile / measure / overhead per candidate (memtune_compile_bench)" "exit $status" ;;
    launcher)
      OUT="$out/launcher" scripts/launcher_gpu_check.sh "$build" >"$out/launcher.txt" 2>&1
      row "launcher check" "exit $?"
      columns_table "$out/launcher.txt" >>"$out/$step.table" ;;
    realkernels)
      mkdir -p "$out/realkernels"
      for spec in "haxpy/haxpy.json n=32M" "padded_stencil/padded_stencil.json dimx=256,dimy=256,dimz=256" \
                  "reduction/reduction.json n=16M,T=float" "reduction/reduction.json n=16M,T=int" \
                  "transpose_host/transpose.json width=8K,height=8K"; do
        set -- $spec
        tag=$(basename "$1" .json)_$(echo "$2" | tr ',=' '__')
        begin=$SECONDS
        "$memtune" tune --spec "examples/kernels/$1" --set "$2" --format json >"$out/realkernels/$tag.json" \
          2>"$out/realkernels/$tag.err"
        status=$?
        summary=$(python3 - "$out/realkernels/$tag.json" <<'PY'
import json, sys
try:
    doc = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"no JSON ({e})"); sys.exit()
data = doc.get("data", doc)
trials = data.get("trials", [])
ok = sum(t["status"] == "ok" for t in trials)
bad = {}
for t in trials:
    if t["status"] != "ok": bad[t["status"]] = bad.get(t["status"], 0) + 1
best = data.get("best")
text = f"{ok}/{len(trials)} verified ok" + "".join(f", {n} {s}" for s, n in bad.items())
if data.get("aborted"): text += f"; aborted: {data['aborted'][:120]}"
if best:
    cfg = " ".join(f"{k}={v}" for k, v in best["config"].items())
    text += f"; best {cfg}: {best.get('gbps', 0):.0f} GB/s, {100 * best.get('fraction_of_ceiling', 0):.1f}% of ceiling"
print(text)
PY
)
        echo "$1 $2: exit $status, $summary, $((SECONDS - begin)) s"
        row "--spec $1 ($2)" "exit $status, $summary, $((SECONDS - begin)) s"
      done ;;
    transfer)
      RAW="$out/transfer" bench/spec_transfer.sh "$build" >"$out/transfer.txt" 2>&1
      status=$?
      mkdir -p "$out/spec" && cp bench/data/spec/*.json "$out/spec/" 2>/dev/null
      sed -n '/^kernel  /,$p' "$out/transfer.txt"
      sed -n '/^kernel  /,/^$/p' "$out/transfer.txt" | tail -n +2 | grep -v '^$' |
        sed -E 's/ {2,}/ | /g; s/^/| /; s/$/ |/' >>"$out/$step.table"
      row "--spec kernels: model, --from, bayes (bench/spec_transfer.sh)" "exit $status" ;;
    isolation)
      OUT="$out/isolation" scripts/isolation_gpu_check.sh "$build" >"$out/isolation.txt" 2>&1
      row "isolation check" "exit $?"
      columns_table "$out/isolation.txt" >>"$out/$step.table" ;;
    shard)
      scripts/shard_check.sh --memtune "$memtune" --out "$out/shard" -- fdtd >"$out/shard.txt" 2>&1
      row "fdtd as 4 shards + memtune merge vs one run" "exit $?"
      verdict_rows "$out/shard.txt" >>"$out/$step.table" ;;
    report)
      OUT="$out/report" scripts/report_gpu_check.sh "$build" >"$out/report.txt" 2>&1
      row "report check" "exit $?"
      last_table "$out/report.txt" >>"$out/$step.table" ;;
    sanitize)
      OUT="$out/sanitize" SAMPLE=${SAMPLE:-0} scripts/sanitize_templates.sh "$build" >"$out/sanitize.txt" 2>&1
      status=$?
      sed -n '/^template and size/,$p' "$out/sanitize.txt"
      sed -n '/^template and size/,$p' "$out/sanitize.txt" | grep -v '^template and size\|^$\|^ \|clean' |
        while read -r line; do row "sanitizer: ${line%%  *}" "$(echo "${line#*  }" | tr -s ' ')"; done
      row "compute-sanitizer over the templates" "exit $status (0: clean)" ;;
    probes)
      "$memtune" probe --save-target "$out/probed_target.json" --json "$out/probe.json" --record "$out/probe-record" \
        >"$out/probe.txt" 2>&1
      row "memtune probe --save-target" "exit $?; $(grep -c ' yes$\| yes ' "$out/probe.txt") verified rows"
      "$build/bench/model/memtune_model_validation" "$out/probe-record"/*.json --target-file "$out/probed_target.json" \
        >"$out/probe_validation.txt" 2>&1
      cat "$out/probe_validation.txt"
      if command -v ncu >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/ncu ]; then
        scripts/filter_ncu_validation.sh "$build" "$out/filter-ncu" >"$out/filter_ncu.txt" 2>&1
        row "filter bank model vs ncu" "$(tail -1 "$out/filter_ncu.txt")"
      fi ;;
    energy)
      scripts/energy_gpu_check.sh "$memtune" "$out/energy" >"$out/energy.txt" 2>&1
      row "energy check (scripts/energy_gpu_check.sh)" "exit $?"
      grep '^==\|^energy:' "$out/energy.txt"
      grep '^|' "$out/energy.txt" | grep -v '^| run |\|^|---' >>"$out/$step.table" ;;
    searchspace)
      # The search benchmark's recorded user-kernel space, whole, on every GPU
      # of the host (about 6 minutes on two H200s): a call cut at its limit
      # leaves the record's journal, and the same step in the next call
      # resumes it (keep $out between calls).
      "$memtune" tune --spec bench/search/wide_stencil/wide_stencil.json --strategy grid --devices all -q \
        --record "$out/${gpu}_wide_stencil.json" >"$out/searchspace.txt" 2>&1
      status=$?
      row "wide_stencil recorded whole (bench/search/wide_stencil)" \
        "exit $status; $(grep -o '[0-9]* configurations evaluated.*wall' "$out/searchspace.txt")"
      [ $status -eq 0 ] && python3 - "$out/${gpu}_wide_stencil.json" >>"$out/$step.table" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ok = [t["time_s"] for t in d["trials"] if t["status"] == "ok"]
best = min(ok)
print(f"| wide_stencil: trials, ok, best, within 5 % | {len(d['trials'])}, {len(ok)}, {best * 1e6:.2f} us, "
      f"{sum(t <= 1.05 * best for t in ok)} |")
PY
      ;;
    devices)
      OUT="$out/devices" scripts/devices_gpu_check.sh "$build" >"$out/devices.txt" 2>&1
      row "devices check" "exit $?"
      last_table "$out/devices.txt" >>"$out/$step.table" ;;
    *) echo "unknown step $step (build tests catalogue cost compile launcher realkernels transfer isolation shard sweep report sanitize probes devices energy searchspace)"; exit 2 ;;
  esac
  echo "   ($((SECONDS - start)) s)"
done

echo
echo "GPU check on $name ($(head -2 "$out/gpu.txt" | tail -1)), steps: ${steps[*]}"
echo "| check | result |"
echo "|---|---|"
for step in "${steps[@]}"; do cat "$out/$step.table"; done
