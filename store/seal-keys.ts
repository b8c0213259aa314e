/**
 * The keys that seal message runs' inputs (messages/seal.ts): from `MESSAGE_SEAL_KEYS`, or one generated on first
 * use and kept in the `gateway_secrets` collection, so every api and worker of a deployment shares it with no setup.
 * The record also says since when this deployment seals: runs started before then carry no seal and are accepted
 * as they are (they were started by an earlier version of the gateway). Concurrent first starts race on the fixed
 * `_id`; the loser reads the winner's record.
 */
import { randomBytes } from 'node:crypto';
import { Schema, type Connection } from 'mongoose';
import type { Config } from '../platform/config';
import { model } from './model-once';

interface GatewaySecretDoc {
  _id: string;
  key: string;
  created_at: Date;
}

const gatewaySecretSchema = new Schema<GatewaySecretDoc>(
  {
    _id: { type: String, required: true },
    key: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'gateway_secrets' },
);

const SEAL_KEY_ID = 'message-seal';

/** The seal keys (the sealing one first) and since when runs are sealed. */
export async function loadSealKeys(
  config: Pick<Config, 'MESSAGE_SEAL_KEYS'>,
  connection: Connection,
): Promise<{ keys: string[]; since: string }> {
  const secrets = model(connection, 'GatewaySecret', gatewaySecretSchema);
  let stored = await secrets.findById(SEAL_KEY_ID).lean();
  if (!stored) {
    try {
      await secrets.create({ _id: SEAL_KEY_ID, key: randomBytes(32).toString('base64url'), created_at: new Date() });
    } catch (error) {
      if ((error as { code?: number }).code !== 11000) throw error;
    }
    stored = await secrets.findById(SEAL_KEY_ID).lean();
    if (!stored) throw new Error('the message seal key could not be stored');
  }
  const keys = config.MESSAGE_SEAL_KEYS ? config.MESSAGE_SEAL_KEYS.split(',') : [stored.key];
  return { keys, since: stored.created_at.toISOString() };
}
