/** `npm run api`: the stateless HTTP api, as production runs it (any number of replicas). */
import { Client } from '@temporalio/client';
import type { Server } from 'node:http';
import { createCatalogue } from '../domain/catalogue/catalogue';
import { catalogueModels, initCatalogueModels } from '../domain/catalogue/models';
import { startSweeper } from '../domain/catalogue/sweeper';
import { loadConfigOrExit } from '../domain/config';
import { connectMongo, connectTemporalClient } from '../domain/connections';
import { createLogger } from '../domain/logger';
import { ensureSearchAttributes } from '../domain/search-attributes';
import { createApp } from './app';
import { MessageService } from './message-service';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createLogger('api', config);
  const mongo = await connectMongo(config.MONGODB_URI, logger);
  const models = catalogueModels(mongo);
  await initCatalogueModels(models); // indexes exist before the first registration
  const catalogue = createCatalogue(models, config);
  const connection = await connectTemporalClient(config.TEMPORAL_ADDRESS, logger);
  const client = new Client({ connection, namespace: config.TEMPORAL_NAMESPACE });
  await ensureSearchAttributes(connection, config.TEMPORAL_NAMESPACE);
  const app = createApp({
    config,
    catalogue,
    messages: new MessageService({ client, queries: catalogue.queries, config }),
    logger,
    health: {
      database: async () => Boolean(await mongo.db?.admin().ping()),
      temporal: async () => Boolean(await connection.workflowService.getSystemInfo({})),
    },
  });
  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(config.API_PORT, config.API_HOST, () => resolve(listening));
    listening.once('error', reject);
  });
  logger.info({ url: config.PUBLIC_URL }, 'api listening');
  // Every replica sweeps; the conditional updates make each offline transition happen (and be recorded) once.
  const stopSweeper = startSweeper(catalogue.heartbeats, config.SWEEP_INTERVAL_MS, logger);
  const stopIndex = catalogue.index.start(logger);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'api stopping');
    server.close();
    server.closeIdleConnections();
    stopIndex();
    await stopSweeper();
    await Promise.allSettled([connection.close(), mongo.close()]);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error('api failed to start:', error);
  process.exit(1);
});
