/**
 * The gateway under test in cluster mode (docs/cluster.md): the same BenchSystem as bench/lib/system.ts, over the
 * processes of `npm run cluster` on free ports with a data folder under /tmp. CPU is counted per role as there,
 * plus `postgresql` (the postmaster and every backend it forked) and `balancer` (HAProxy).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../platform/config';
import { newApiKey } from '../../rules/api-key';
import { configKeyEntry } from '../../rules/config-keys';
import { freeClusterPorts } from '../../supervisor/cluster/ports';
import { startCluster } from '../../supervisor/cluster/start-cluster';
import { stopOnInterrupt } from './cleanup';
import type { BenchSystem, Component } from './system';

export interface ClusterSystemOptions {
  /** Extra environment of the api replicas and the workers. */
  env?: Record<string, string>;
  workers: number;
  keepData?: boolean;
  log?: (line: string) => void;
}

/** A process and the processes it forked (PostgreSQL runs one backend per connection). */
function withChildren(pid: number | undefined): number[] {
  if (!pid) return [];
  try {
    const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
    return [pid, ...children];
  } catch {
    return [pid];
  }
}

export async function startBenchCluster(options: ClusterSystemOptions): Promise<BenchSystem> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-reach-bench-cluster-'));
  const apiKey = newApiKey().key;
  const config = loadConfig({
    ...process.env,
    CLUSTER_DATA_DIR: dataDir,
    CLUSTER_WORKERS: String(options.workers),
    ...(await freeClusterPorts()),
  });
  // Interrupted during start-up: what has started is stopped (the signal), then the folder goes.
  const starting = new AbortController();
  const started = startCluster({
    config,
    log: options.log ?? (() => undefined),
    signal: starting.signal,
    appEnv: {
      LOG_LEVEL: 'warn',
      API_KEYS: configKeyEntry('default', ['admin'], apiKey),
      ENDPOINT_ALLOW_LOOPBACK: 'true',
      ...options.env,
    },
  });
  const removeData = () => {
    if (!options.keepData) rmSync(dataDir, { recursive: true, force: true });
  };
  stopOnInterrupt(async () => {
    starting.abort();
    await started.then(
      (cluster) => cluster.stop(),
      () => undefined,
    );
    removeData();
  });
  const cluster = await started;
  const stop = async () => {
    await cluster.stop();
    removeData();
  };
  const pid = (name: string) => cluster.members.get(name)?.current.child?.pid;
  const names = (prefix: string) => [...cluster.members.keys()].filter((name) => name.startsWith(prefix));
  /** The bench's components → cluster members (an api kill takes replica 1, a worker kill worker 1). */
  const member: Record<Component, string> = {
    temporal: 'temporal',
    ferretdb: 'ferretdb',
    api: 'api-1',
    worker: 'worker-1',
  };
  return {
    apiUrl: cluster.url,
    temporalAddress: cluster.temporalAddress,
    apiKey,
    dataDir,
    pids() {
      const pids: Record<string, number[]> = {
        temporal: [pid('temporal')].filter((p): p is number => p !== undefined),
        ferretdb: [pid('ferretdb')].filter((p): p is number => p !== undefined),
        api: names('api-')
          .map(pid)
          .filter((p): p is number => p !== undefined),
        worker: names('worker-')
          .map(pid)
          .filter((p): p is number => p !== undefined),
        postgresql: withChildren(pid('postgresql')),
        balancer: [pid('balancer')].filter((p): p is number => p !== undefined),
      };
      return pids as Record<Component, number[]>;
    },
    kill: (component) => cluster.kill(member[component]),
    start: (component) => cluster.members.get(member[component])!.restart(),
    stop,
  };
}
