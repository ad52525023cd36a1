'use strict';
// Test-only preload (`node --require test/helpers/fault-preload.cjs`, or through NODE_OPTIONS):
// installs the handler that src/util/test-fault.ts calls at its named points. `GCPATCH_TEST_FAULT`
// picks the fault, read from this process's environment at each point:
// - `crash`: throws at `driver-after-arguments` (the driver's crash path then runs);
// - `service-kill-<point>`: SIGKILL at that point of a request, as `kill -9` would;
// - `service-stall-before-accept`: stops answering for 2.5 s before taking a request.
globalThis[Symbol.for('gcpatch.test-fault')] = (point) => {
  const f = process.env.GCPATCH_TEST_FAULT;
  if (f === undefined) return;
  if (f === 'crash' && point === 'driver-after-arguments') throw new Error('injected fault (GCPATCH_TEST_FAULT=crash)');
  if (f === `service-kill-${point}`) process.kill(process.pid, 'SIGKILL');
  if (f === 'service-stall-before-accept' && point === 'before-accept') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2500);
};
