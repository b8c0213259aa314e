/** Free port ranges for a cluster started beside other things (tests, benchmarks). */
import { createServer } from 'node:net';

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * Below Linux's ephemeral range (32768–60999 by default), from which the kernel gives outgoing connections their
 * local ports: a port chosen there was taken by one of the cluster's own connections before its server bound it
 * (a CI run: api-2 `EADDRINUSE`). Temporal needs it too: it keeps membership ports in a smallint column.
 */
const BELOW_EPHEMERAL = 32_768;

/** The first of `count` consecutive ports between 20000 and the ephemeral range, none in `taken`, all free a moment ago. */
export async function freePortRange(count: number, taken: ReadonlySet<number> = new Set()): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const base = 20_000 + Math.floor(Math.random() * (BELOW_EPHEMERAL - 20_000 - count));
    const ports = Array.from({ length: count }, (_, i) => base + i);
    if (ports.some((port) => taken.has(port))) continue;
    const checks = await Promise.all(ports.map(portFree));
    if (checks.every(Boolean)) return base;
  }
  throw new Error(`no ${count} consecutive free ports found`);
}

/** CLUSTER_* port settings on free ports, none shared (nothing is bound until the cluster starts). */
export async function freeClusterPorts(): Promise<Record<string, string>> {
  const taken = new Set<number>();
  const range = async (count: number) => {
    const base = await freePortRange(count, taken);
    for (let i = 0; i < count; i++) taken.add(base + i);
    return String(base);
  };
  return {
    CLUSTER_PORT: await range(4),
    CLUSTER_TEMPORAL_PORT: await range(15),
    CLUSTER_POSTGRES_PORT: await range(1),
    CLUSTER_MONGODB_PORT: await range(1),
  };
}
