/** Connecting to MongoDB and Temporal at process start, waiting (with a log line) while they come up. */
import { Connection, type ConnectionOptions } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import mongoose from 'mongoose';
import type { Logger } from 'pino';
import type { Config } from './config';

/** Where Temporal is, and the token it wants (cluster mode's authorization, docs/cluster.md); none for a dev server. */
export type TemporalEndpoint = Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_API_KEY'>;

const RETRY_EVERY_MS = 1_000;

/** Calls `connect` until it succeeds or `timeoutMs` passes, logging each failure once per 10 s. */
export async function withStartupRetry<T>(
  what: string,
  connect: () => Promise<T>,
  logger: Logger,
  timeoutMs = 120_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastLog = 0;
  for (;;) {
    try {
      return await connect();
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`could not connect to ${what} within ${timeoutMs} ms`, { cause: error });
      if (Date.now() - lastLog > 10_000) {
        logger.warn({ err: (error as Error).message }, `waiting for ${what}`);
        lastLog = Date.now();
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_EVERY_MS));
    }
  }
}

export async function connectMongo(uri: string, logger: Logger): Promise<mongoose.Connection> {
  return withStartupRetry(
    `MongoDB at ${redactUri(uri)}`,
    async () => {
      const connection = mongoose.createConnection(uri, { serverSelectionTimeoutMS: 5_000 });
      try {
        return await connection.asPromise();
      } catch (error) {
        await connection.close().catch(() => undefined);
        throw error;
      }
    },
    logger,
  );
}

export async function connectTemporalClient(endpoint: TemporalEndpoint, logger: Logger): Promise<Connection> {
  const address = endpoint.TEMPORAL_ADDRESS;
  const options: ConnectionOptions = { address, connectTimeout: 5_000, ...apiKeyOf(endpoint) };
  return withStartupRetry(`Temporal at ${address}`, () => Connection.connect(options), logger);
}

export async function connectTemporalWorker(endpoint: TemporalEndpoint, logger: Logger): Promise<NativeConnection> {
  const address = endpoint.TEMPORAL_ADDRESS;
  return withStartupRetry(
    `Temporal at ${address}`,
    () => NativeConnection.connect({ address, ...apiKeyOf(endpoint) }),
    logger,
  );
}

/** The SDK's `apiKey` option (sent as `Authorization: Bearer …`, over TLS or not as the connection is). */
function apiKeyOf(endpoint: TemporalEndpoint): { apiKey?: string } {
  return endpoint.TEMPORAL_API_KEY ? { apiKey: endpoint.TEMPORAL_API_KEY } : {};
}

/** The URI without its password, for logs. */
export function redactUri(uri: string): string {
  return uri.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
