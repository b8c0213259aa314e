/**
 * The `routing_sessions` collection, for session stickiness: the capability and instance a session was last routed
 * to, per tenant. Entries older than the TTL are ignored on read and deleted by the sweeper (FerretDB has no TTL
 * indexes).
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { model } from './model-once';

/** Where a session was last routed: the capability (`agent_id/capability`) and the instance. */
export interface SessionTarget {
  key: string;
  instance_id: string;
}

/** What the router needs of the session store (tests give it one in memory). */
export interface SessionStore {
  get(tenant: string, sessionId: string): Promise<SessionTarget | undefined>;
  set(tenant: string, sessionId: string, value: SessionTarget): Promise<void>;
}

interface SessionDoc extends SessionTarget {
  /** `tenant/session_id` */
  _id: string;
  updated_at: Date;
}

const sessionSchema = new Schema<SessionDoc>(
  {
    _id: { type: String, required: true },
    key: { type: String, required: true },
    instance_id: { type: String, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'routing_sessions' },
);
sessionSchema.index({ updated_at: 1 }); // the sweeper deletes expired sessions

export function sessionModel(connection: Connection): Model<SessionDoc> {
  return model(connection, 'RoutingSession', sessionSchema);
}

export class MongoSessionStore implements SessionStore {
  constructor(
    private readonly model: Model<SessionDoc>,
    private readonly ttlMs: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async get(tenant: string, sessionId: string) {
    const doc = await this.model.findById(`${tenant}/${sessionId}`).lean<SessionDoc>();
    if (!doc || this.now().getTime() - doc.updated_at.getTime() > this.ttlMs) return undefined;
    return { key: doc.key, instance_id: doc.instance_id };
  }

  async set(tenant: string, sessionId: string, value: SessionTarget) {
    const _id = `${tenant}/${sessionId}`;
    await this.model.replaceOne({ _id }, { _id, ...value, updated_at: this.now() }, { upsert: true });
  }
}
