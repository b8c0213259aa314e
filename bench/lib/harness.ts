/** The scenario settings both benchmarks derive from the command-line options. */
import type { CommonOptions } from './options';
import type { HarnessOptions } from './scenario';
import { join } from 'node:path';

export function harnessOptions(
  common: CommonOptions,
  runDir: string,
  system: HarnessOptions['system'],
  progress: HarnessOptions['progress'],
): HarnessOptions {
  // The key given, else the one the benchmark's own system was started with.
  const apiKey = common.apiKey ?? system?.apiKey;
  return {
    runDir: join(runDir, 'runs'),
    seed: common.seed,
    workMs: common.workMs,
    faults: common.faults,
    ...(system ? { system } : {}),
    ...(apiKey ? { apiKey } : {}),
    ackTimeoutMs: common.ackTimeoutMs,
    maxAttempts: common.maxAttempts,
    maxDeliveryMs: common.maxDeliveryMs,
    stallMs: 20_000,
    drainTimeoutMs: 180_000,
    progress,
  };
}
