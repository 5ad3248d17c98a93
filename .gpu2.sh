OUT_REAL=$OUT
export OUT=/tmp/gc
timeout 570 bash scripts/gpu_check.sh build-gpu > $OUT_REAL/gpu_check.txt 2>&1; echo "gpu_check rc=$?" >> $OUT_REAL/gpu_check.txt
tail -45 $OUT_REAL/gpu_check.txt
cp /tmp/gc/catalogue/*_record.json $OUT_REAL/ 2>/dev/null
grep -E "ERROR|FAILED|MESSAGE|test cases" /tmp/gc/gpu_tests.log | head -30 > $OUT_REAL/gpu_tests_summary.txt
head -40 /tmp/gc/catalogue/fdtd_512x512x256_r4.err 2>/dev/null | tail -5
