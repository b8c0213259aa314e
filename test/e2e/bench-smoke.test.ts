/**
 * The delivery benchmark's harness on a few messages: real agent processes with their fault layer, direct HTTP and
 * through the real gateway (Temporal dev server, FerretDB, worker and api in this process). Checks the counting,
 * not the speed: with every response lost, the direct pipeline's duplicates follow from 3 tries per hop.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { FAULT_KINDS, type FaultKind } from '../../bench/lib/faults';
import { runScenario, type HarnessOptions } from '../../bench/lib/scenario';
import type { BenchSystem } from '../../bench/lib/system';
import { startTestServers, type TestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';
import { TEST_API_KEY } from '../helpers/http';

let servers: TestServers;
let system: TestSystem;
let runDir: string;

before(async () => {
  runDir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
  servers = await startTestServers();
  // Backoffs and circuits in seconds, not minutes: with half the attempts failing, five in a row on one agent open
  // its circuit, and at the default 30 s (60 s when its probe fails too) the message outlasted the harness's wait
  // and was counted unprocessed — a CI flake. The test checks counting, not timing.
  system = await startSystem(servers, {
    DELIVERY_INITIAL_BACKOFF_MS: '100',
    DELIVERY_MAX_BACKOFF_MS: '500',
    CIRCUIT_OPEN_MS: '1000',
    CIRCUIT_MAX_OPEN_MS: '2000',
  });
});

after(async () => {
  await system?.stop();
  await servers?.stop();
  rmSync(runDir, { recursive: true, force: true });
});

function harness(kinds: readonly FaultKind[] = FAULT_KINDS): HarnessOptions {
  const gateway = {
    apiUrl: system.baseUrl,
    apiKey: TEST_API_KEY,
    dataDir: runDir,
    pids: () => ({}),
  } as unknown as BenchSystem;
  return {
    runDir,
    seed: 3,
    workMs: 5,
    faults: { kinds, delayMinMs: 100, delayMaxMs: 300 },
    system: gateway,
    apiKey: TEST_API_KEY,
    ackTimeoutMs: 1_000,
    maxAttempts: 10,
    maxDeliveryMs: 60_000,
    stallMs: 10_000,
    drainTimeoutMs: 30_000,
    progress: () => undefined,
  };
}

describe('bench smoke', () => {
  it('bench smoke - without faults both modes process and settle every message once', async () => {
    for (const mode of ['direct', 'reach'] as const) {
      const { result } = await runScenario({ mode, ratePerMin: 600, messages: 4, faultRate: 0 }, harness());
      assert.equal(result.processed, 4, mode);
      assert.equal(result.terminal, 4, mode);
      assert.equal(result.duplicate_effects, 0, mode);
      assert.equal(result.duplicate_deliveries, 0, mode);
      assert.ok(result.p95_ms !== null && result.p50_ms !== null, mode);
    }
  });

  it('bench smoke - direct HTTP with every response lost: 3 tries per hop repeat each effect (3, 9, 27), nothing terminal', async () => {
    const { result } = await runScenario(
      { mode: 'direct', ratePerMin: 600, messages: 2, faultRate: 1 },
      harness(['lose_receipt']),
    );
    assert.equal(result.processed, 2);
    assert.equal(result.terminal, 0, 'the caller never learns the outcome');
    assert.equal(result.duplicate_effects, 2 * (2 + 8 + 26));
    assert.equal(result.duplicate_deliveries, 2 * (2 + 8 + 26));
  });

  it('bench smoke - through Agent-Reach, lost receipts are redelivered and de-duplicated: processed once', async () => {
    const { result } = await runScenario(
      { mode: 'reach', ratePerMin: 600, messages: 3, faultRate: 0.5 },
      harness(['lose_receipt', 'error_5xx']),
    );
    assert.equal(result.processed, 3);
    assert.equal(result.terminal, 3);
    assert.equal(result.duplicate_effects, 0);
  });
});
