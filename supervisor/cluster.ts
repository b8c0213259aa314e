/**
 * `npm run cluster`: the production topology on this machine, one supervised command (docs/cluster.md).
 * PostgreSQL, the Temporal server on it (SQL persistence and visibility), FerretDB on it, workers, two api replicas
 * and HAProxy in front of them; data and logs in CLUSTER_DATA_DIR. An api replica or worker that dies is started
 * again (as an orchestrator would); a server that dies stops everything. Ctrl-C stops everything.
 *
 * supervisor/ runs Agent-Reach on one machine (embedded.ts: embedded mode); cluster/ holds how each of cluster mode's
 * processes starts, start-cluster.ts the order.
 */
import { join } from 'node:path';
import { loadConfigOrExit } from '../platform/config';
import { startCluster, type Cluster } from './cluster/start-cluster';
import { supervisedProcessGroups } from './dev-servers';

const say = (line: string) => console.log(`[cluster] ${line}`);

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  supervisedProcessGroups();
  let cluster: Cluster | undefined;
  let stopping = false;
  // Ctrl-C during start-up: what has started is stopped, and startCluster rejects.
  const starting = new AbortController();
  const stop = async (exitCode: number) => {
    if (stopping) return;
    stopping = true;
    say('stopping…');
    if (!cluster) {
      starting.abort();
      return; // the start-up's failure path below stops what it started and exits
    }
    await cluster.stop();
    say('stopped');
    process.exit(exitCode);
  };
  // A stop, not a failure: exit 0 (npm reports 130 after Ctrl-C, having had the SIGINT itself).
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(0));
  try {
    cluster = await startCluster({ config, log: say, signal: starting.signal });
  } catch (error) {
    if (starting.signal.aborted) {
      say('stopped');
      process.exit(0);
    }
    say(`start-up failed: ${(error as Error).message}`);
    say(`logs: ${join(config.CLUSTER_DATA_DIR, 'logs')}`);
    process.exit(1);
  }
  cluster.onUnexpectedExit((member, code) => {
    if (stopping) return;
    if (/^(api|worker)-/.test(member.name)) {
      say(`${member.name} exited (${code}); starting it again`);
      member.restart().then(
        () => say(`${member.name} is back`),
        (error: unknown) => {
          say(`${member.name} could not be started again: ${(error as Error).message}`);
          void stop(1);
        },
      );
      return;
    }
    say(`${member.name} exited unexpectedly (${code}); stopping everything`);
    void stop(1);
  });
  const m = (name: string) => cluster!.members.get(name)!.current.child?.pid;
  console.log(
    [
      '',
      'Agent-Reach is running (cluster mode)',
      `  API          ${cluster.url} (HAProxy; statistics on http://127.0.0.1:${config.CLUSTER_PORT + 3}/stats)`,
      `  Replicas     ${cluster.replicaUrls.join(', ')}`,
      `  Workers      ${config.CLUSTER_WORKERS} (pids ${[...cluster.members.keys()]
        .filter((n) => n.startsWith('worker-'))
        .map(m)
        .join(', ')})`,
      `  Temporal     ${cluster.temporalAddress} (server on PostgreSQL, ${config.CLUSTER_HISTORY_SHARDS} history shards)`,
      `  Tokens       Temporal requires them (keys: ${cluster.jwksUrl}); docs/cluster.md, "The wall"`,
      `               a tenant's: npm run temporal-token -- --namespace <ns> --role write; the operator's: -- --system-admin`,
      `  MongoDB      ${cluster.mongoUri} (FerretDB on PostgreSQL)`,
      `  PostgreSQL   127.0.0.1:${config.CLUSTER_POSTGRES_PORT} (data in ${join(cluster.dataDir, 'postgresql')})`,
      ...(process.env.API_KEYS
        ? []
        : [
            `  API key      ${cluster.apiKey} (tenant ${config.DEFAULT_TENANT}, admin; export REACH_API_KEY=… for the CLI and SDK)`,
          ]),
      `  Logs         ${join(cluster.dataDir, 'logs')}`,
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
}

void main();
