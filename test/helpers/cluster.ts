/**
 * Cluster mode for tests: the real topology of `npm run cluster` (PostgreSQL, Temporal server with its authorization,
 * FerretDB on PostgreSQL, workers, two api replicas, HAProxy) on free ports and a temporary data folder, with the test
 * system's shrunk delivery timings and its API key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { loadConfig } from '../../platform/config';
import { configKeyEntry } from '../../rules/config-keys';
import { freeClusterPorts } from '../../supervisor/cluster/ports';
import { startCluster, type Cluster } from '../../supervisor/cluster/start-cluster';
import { SYSTEM_ADMIN } from '../../supervisor/cluster/temporal-tokens';
import { TEST_API_KEY } from './http';

export interface TestClusterOptions {
  workers?: number;
  /** Extra environment of the api replicas and workers (e.g. more API_KEYS entries, NEXUS_TENANTS). */
  appEnv?: Record<string, string>;
}

export async function startTestCluster(options: TestClusterOptions = {}): Promise<Cluster> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-reach-cluster-'));
  const config = loadConfig({
    ...process.env,
    CLUSTER_DATA_DIR: dataDir,
    ...(await freeClusterPorts()),
    CLUSTER_WORKERS: String(options.workers ?? 2),
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
      ...options.appEnv,
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

/** A token of the cluster's key granting `permissions`, good for an hour (longer than any test file). */
export function testToken(cluster: Cluster, subject: string, permissions: string[]): Promise<string> {
  return cluster.mintToken({ subject, permissions, ttlSeconds: 3_600 });
}

/** A client connection to the cluster's Temporal as its operator (`temporal-system:admin`). */
export async function adminConnection(cluster: Cluster): Promise<Connection> {
  return Connection.connect({
    address: cluster.temporalAddress,
    apiKey: await testToken(cluster, 'test-operator', [SYSTEM_ADMIN]),
  });
}

/** A worker connection to the cluster's Temporal carrying `token`. */
export function workerConnection(cluster: Cluster, token: string): Promise<NativeConnection> {
  return NativeConnection.connect({ address: cluster.temporalAddress, apiKey: token });
}
