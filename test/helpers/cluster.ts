/**
 * Cluster mode for tests: the real topology of `npm run cluster` (PostgreSQL, Temporal server, FerretDB on
 * PostgreSQL, two workers, two api replicas, HAProxy) on free ports and a temporary data folder, with the test
 * system's shrunk delivery timings and its API key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../platform/config';
import { configKeyEntry } from '../../rules/config-keys';
import { startCluster, type Cluster } from '../../scripts/lib/cluster/start-cluster';
import { TEST_API_KEY } from './http';

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The first of `count` consecutive ports below `below` that were all free a moment ago. */
export async function freePortRange(count: number, below = 50_000): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const base = 20_000 + Math.floor(Math.random() * (below - 20_000 - count));
    const checks = await Promise.all(Array.from({ length: count }, (_, i) => portFree(base + i)));
    if (checks.every(Boolean)) return base;
  }
  throw new Error(`no ${count} consecutive free ports found`);
}

export async function startTestCluster(): Promise<Cluster> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-reach-cluster-'));
  const config = loadConfig({
    ...process.env,
    CLUSTER_DATA_DIR: dataDir,
    CLUSTER_PORT: String(await freePortRange(4)),
    // Temporal keeps membership ports in a smallint column: they must stay below 32768.
    CLUSTER_TEMPORAL_PORT: String(await freePortRange(14, 32_768)),
    CLUSTER_POSTGRES_PORT: String(await freePortRange(1)),
    CLUSTER_MONGODB_PORT: String(await freePortRange(1)),
    CLUSTER_WORKERS: '2',
  });
  const cluster = await startCluster({
    config,
    log: () => undefined,
    appEnv: {
      API_KEYS: configKeyEntry('default', ['admin', 'metrics'], TEST_API_KEY),
      ROUTER_PROVIDER: 'lexical',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_SECOND: '0',
      DELIVERY_INITIAL_BACKOFF_MS: '200',
      DELIVERY_MAX_BACKOFF_MS: '1000',
      DELIVERY_TIMEOUT_MS: '5000',
      // Kills and restarts cost attempts; none of them may make a message fail.
      DELIVERY_MAX_ATTEMPTS: '50',
    },
  });
  return {
    ...cluster,
    async stop() {
      await cluster.stop();
      if (!process.env.KEEP_CLUSTER_DATA) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
