/** The scenario settings both benchmarks derive from the command-line options. */
import type { CommonOptions } from './options';
import type { HarnessOptions } from './scenario';
import { join } from 'node:path';

export function harnessOptions(common: CommonOptions, runDir: string, system: HarnessOptions['system'], progress: HarnessOptions['progress']): HarnessOptions {
  return {
    runDir: join(runDir, 'runs'),
    seed: common.seed,
    workMs: common.workMs,
    faults: common.faults,
    ...(system ? { system } : {}),
    ...(common.apiKey ? { apiKey: common.apiKey } : {}),
    ackTimeoutMs: common.ackTimeoutMs,
    maxAttempts: common.maxAttempts,
    maxDeliveryMs: common.maxDeliveryMs,
    stallMs: 20_000,
    drainTimeoutMs: 180_000,
    progress,
  };
}

