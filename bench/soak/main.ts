/**
 * Soak: distinct message ids pushed through every bounded store and cache, with resident memory measured before
 * and after each (after a full GC, the structures still alive). A bound that leaks shows as memory that grows with
 * the ids; a kept bound shows as a flat line once the store is full.
 *
 *   npm run bench:soak [-- --ids 1000000 --patterns 50000 --schemas 5000]
 *
 * Phases (each id is new, as a message id is):
 * - the SDK's handled-id store in memory and on file (default window: 100,000 ids, 30 days);
 * - the api's API key lookup cache, fed made-up well-formed keys (each id a lookup that finds nothing);
 * - heartbeat bookkeeping: each id an instance beating once, the clock moving 1 ms a beat, swept every 5 s;
 * - the RE2 pattern cache and the parameter-check validator cache (ajv with RE2 compiles a schema in ~10 ms on this
 *   machine, so fewer distinct schemas are used there; the counts are in the result).
 * Writes bench/results/soak.json (with the commit) and prints a table.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Heartbeats } from '../../catalogue/heartbeats';
import { compiledSchemas, invalidProperties } from '../../router/parameter-check';
import { cachedPatterns, safePattern } from '../../util/safe-pattern';
import { writeResultFile } from '../lib/result-file';
import { FileStore, MemoryStore } from '../../sdk/idempotency-store';
import { ApiKeyStore } from '../../store/api-keys';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc (npm run bench:soak does)');

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 ? Number(process.argv[index + 1]) : fallback;
}

const IDS = option('ids', 1_000_000);
const PATTERNS = option('patterns', 50_000);
const SCHEMAS = option('schemas', 5_000);
const MiB = 1024 * 1024;

function resident(): { rss_mib: number; heap_used_mib: number } {
  gc!();
  gc!();
  const { rss, heapUsed } = process.memoryUsage();
  return { rss_mib: Math.round((rss / MiB) * 10) / 10, heap_used_mib: Math.round((heapUsed / MiB) * 10) / 10 };
}

interface PhaseResult {
  phase: string;
  ids: number;
  kept: number;
  bound: string;
  seconds: number;
  before: ReturnType<typeof resident>;
  /** Half-way through: the store is already full, so a bound shows as after ≈ halfway. */
  halfway: ReturnType<typeof resident>;
  after: ReturnType<typeof resident>;
  extra?: Record<string, number>;
}

async function phase(
  name: string,
  ids: number,
  bound: string,
  run: (i: number) => unknown,
  kept: () => number,
  extra?: () => Record<string, number>,
): Promise<PhaseResult> {
  const before = resident();
  const started = process.hrtime.bigint();
  let halfway = before;
  for (let i = 0; i < ids; i++) {
    const result = run(i);
    if (result instanceof Promise) await result;
    if (i === Math.floor(ids / 2)) halfway = resident();
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const after = resident();
  const result: PhaseResult = {
    phase: name,
    ids,
    kept: kept(),
    bound,
    seconds: Math.round(seconds * 10) / 10,
    before,
    halfway,
    after,
    ...(extra ? { extra: extra() } : {}),
  };
  console.log(
    `${name.padEnd(34)} ${String(ids).padStart(9)} ids  kept ${String(result.kept).padStart(7)}  rss ${before.rss_mib} → ${halfway.rss_mib} → ${after.rss_mib} MiB  heap ${before.heap_used_mib} → ${after.heap_used_mib} MiB  ${result.seconds} s`,
  );
  return result;
}

const messageId = (i: number) => `soak-${i.toString(36)}-${((i * 2654435761) >>> 0).toString(16)}`;
const outcome = { status: 'processed' as const, result: { ok: true } };

/** The stores of the phases run so far, kept alive until the result is written, so each "after" measured them full. */
type Alive = (() => number)[];

async function sdkStorePhases(alive: Alive): Promise<PhaseResult[]> {
  const memory = new MemoryStore();
  alive.push(() => memory.size);
  const inMemory = await phase(
    'sdk handled ids (memory)',
    IDS,
    '100,000 ids / 30 days',
    (i) => memory.set(messageId(i), outcome),
    () => memory.size,
  );
  const dir = mkdtempSync(join(tmpdir(), 'agent-reach-soak-'));
  const file = new FileStore(join(dir, 'handled.jsonl'));
  alive.push(() => file.size);
  const onFile = await phase(
    'sdk handled ids (file)',
    IDS,
    '100,000 ids / 30 days; file compacted at 2×',
    (i) => file.set(messageId(i), outcome),
    () => file.size,
    () => ({
      file_lines: file.fileLines,
      file_mib: Math.round((statSync(join(dir, 'handled.jsonl')).size / MiB) * 10) / 10,
    }),
  );
  rmSync(dir, { recursive: true, force: true });
  return [inMemory, onFile];
}

async function apiKeyPhase(alive: Alive): Promise<PhaseResult> {
  const nobody = { findById: () => ({ lean: async () => null }) };
  const keys = new ApiKeyStore(nobody as never, { configKeys: [], cacheMs: 5_000 });
  alive.push(() => keys.cachedKeys);
  return phase(
    'api key lookup cache',
    IDS,
    'LRU 10,000',
    (i) => keys.authenticate(`rk_${i.toString(16).padStart(12, '0')}_${'A'.repeat(43)}`),
    () => keys.cachedKeys,
  );
}

async function heartbeatPhase(alive: Alive): Promise<PhaseResult> {
  let now = Date.parse('2026-12-01T00:00:00Z');
  const stored = (key: string) => ({
    _id: key,
    agent_id: 'agt_soak',
    tenant: 'default',
    instance_id: key.split('/')[1],
    transport: 'http',
    endpoint: 'http://127.0.0.1:9',
    state: 'healthy',
    load: { in_flight: 0, qps: 0 },
    last_heartbeat_at: new Date(now),
    liveness: 'online',
    liveness_changed_at: new Date(now),
    created_at: new Date(now),
  });
  const models = {
    instances: {
      findOneAndUpdate: (filter: { _id: string }) => ({ lean: async () => stored(filter._id) }),
      find: () => ({ lean: async () => [] }),
    },
  };
  const heartbeats = new Heartbeats(
    models as never,
    { intervalMs: 10_000, ttlMs: 60_000, graceWindows: 1 },
    { writeEveryMs: 15_000, now: () => new Date(now) },
  );
  alive.push(() => heartbeats.remembered);
  const agent = { _id: 'agt_soak', tenant: 'default' } as never;
  return phase(
    'heartbeat bookkeeping',
    IDS,
    'instances written in the last 15 s (HEARTBEAT_WRITE_EVERY_MS)',
    async (i) => {
      now += 1;
      await heartbeats.beat(agent, { instance_id: messageId(i) });
      if (i % 5_000 === 0) await heartbeats.sweep();
    },
    () => heartbeats.remembered,
  );
}

async function cachePhases(): Promise<PhaseResult[]> {
  const patterns = await phase(
    'RE2 pattern cache',
    PATTERNS,
    'LRU 2,000',
    (i) => safePattern(`^${messageId(i)}$`),
    cachedPatterns,
  );
  const validators = await phase(
    'parameter-check validators (ajv)',
    SCHEMAS,
    'LRU 500; ajv keeps no copy',
    (i) =>
      invalidProperties(
        JSON.stringify({
          $id: 'soak',
          type: 'object',
          properties: { id: { type: 'string', pattern: `^${messageId(i)}$` } },
        }),
        { id: messageId(i) },
      ),
    () => compiledSchemas.size,
  );
  return [patterns, validators];
}

async function main(): Promise<void> {
  const start = resident();
  console.log(`start: rss ${start.rss_mib} MiB, heap ${start.heap_used_mib} MiB`);
  const alive: Alive = [];
  const results: PhaseResult[] = [
    ...(await sdkStorePhases(alive)),
    await apiKeyPhase(alive),
    await heartbeatPhase(alive),
    ...(await cachePhases()),
  ];
  const end = resident();
  console.log(`end: rss ${end.rss_mib} MiB, heap ${end.heap_used_mib} MiB`);
  const path = writeResultFile(resolve(__dirname, '../results'), 'soak', {
    node: process.version,
    ids: IDS,
    patterns: PATTERNS,
    schemas: SCHEMAS,
    start,
    end,
    phases: results,
    alive: alive.map((size) => size()).length,
  });
  console.log(`wrote ${path}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
