/**
 * Cluster mode for tests: the real topology of `npm run cluster` (PostgreSQL, Temporal server, FerretDB on
 * PostgreSQL, two workers, two api replicas, HAProxy) on free ports and a temporary data folder, with the test
 * system's shrunk delivery timings and its API key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../platform/config';
import { configKeyEntry } from '../../rules/config-keys';
import { freeClusterPorts } from '../../supervisor/cluster/ports';
import { startCluster, type Cluster } from '../../supervisor/cluster/start-cluster';
import { TEST_API_KEY } from './http';

export async function startTestCluster(): Promise<Cluster> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-reach-cluster-'));
  const config = loadConfig({
    ...process.env,
    CLUSTER_DATA_DIR: dataDir,
    ...(await freeClusterPorts()),
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
