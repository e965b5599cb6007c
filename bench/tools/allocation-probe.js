/**
 * Preloaded in a service (`BENCH_WORKER_NODE_ARGS="-r ./bench/tools/allocation-probe.js"`, bench/HISTORY.md
 * "Fewer objects per send"): samples what the process allocates, every 4 KB on average, including
 * what either garbage collector has freed since, and writes /tmp/allocations-<pid>.heapprofile when
 * it exits. bench/tools/allocations.ts sums it by function. For investigation only: never loaded otherwise.
 */
const inspector = require('node:inspector');
const { writeFileSync } = require('node:fs');

const session = new inspector.Session();
session.connect();
session.post('HeapProfiler.startSampling', {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
let written = false;
process.on('exit', () => {
  if (written) return;
  written = true;
  // An in-process session answers at once, so this runs before the process ends.
  session.post('HeapProfiler.stopSampling', (error, result) => {
    if (!error) writeFileSync(`/tmp/allocations-${process.pid}.heapprofile`, JSON.stringify(result.profile));
  });
});
