/** Free port ranges for a cluster started beside other things (tests, benchmarks). */
import { createServer } from 'node:net';

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

/** CLUSTER_* port settings on free ports (Temporal's below 32768: it keeps membership ports in a smallint column). */
export async function freeClusterPorts(): Promise<Record<string, string>> {
  return {
    CLUSTER_PORT: String(await freePortRange(4)),
    CLUSTER_TEMPORAL_PORT: String(await freePortRange(14, 32_768)),
    CLUSTER_POSTGRES_PORT: String(await freePortRange(1)),
    CLUSTER_MONGODB_PORT: String(await freePortRange(1)),
  };
}
