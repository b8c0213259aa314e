/** Connecting to MongoDB and Temporal at process start, waiting (with a log line) while they come up. */
import { Connection, type ConnectionOptions } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import mongoose from 'mongoose';
import type { Logger } from 'pino';

const RETRY_EVERY_MS = 1_000;

/** Calls `connect` until it succeeds or `timeoutMs` passes, logging each failure once per 10 s. */
export async function withStartupRetry<T>(what: string, connect: () => Promise<T>, logger: Logger, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastLog = 0;
  for (;;) {
    try {
      return await connect();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`could not connect to ${what} within ${timeoutMs} ms`, { cause: error });
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

export async function connectTemporalClient(address: string, logger: Logger): Promise<Connection> {
  const options: ConnectionOptions = { address, connectTimeout: 5_000 };
  return withStartupRetry(`Temporal at ${address}`, () => Connection.connect(options), logger);
}

export async function connectTemporalWorker(address: string, logger: Logger): Promise<NativeConnection> {
  return withStartupRetry(`Temporal at ${address}`, () => NativeConnection.connect({ address }), logger);
}

/** The URI without its password, for logs. */
export function redactUri(uri: string): string {
  return uri.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}
