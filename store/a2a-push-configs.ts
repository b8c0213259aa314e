/**
 * The `a2a_push_configs` collection: the webhooks A2A clients gave for their tasks (`CreateTaskPushNotificationConfig`,
 * docs/a2a.md, "Push notifications"), per tenant and task. Bounded: at most MAX_CONFIGS_PER_TASK per task and
 * MAX_CONFIGS_PER_TENANT waiting per tenant; a task's configs are deleted once its final state has been posted.
 * `last_state` is the task state last posted to the config: replicas claim each change with a conditional update,
 * so each change is posted once.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { model } from './model-once';

export const MAX_CONFIGS_PER_TASK = 10;
export const MAX_CONFIGS_PER_TENANT = 10_000;

export interface PushConfig {
  tenant: string;
  task_id: string;
  config_id: string;
  url: string;
  token?: string;
  /** How to authenticate to the webhook: `Authorization: <scheme> <credentials>`. */
  authentication?: { scheme: string; credentials: string };
  /** The A2A task state last posted ('' before the first). */
  last_state: string;
  /** Posts that failed in a row; at MAX_POST_FAILURES the config is dropped. */
  failures: number;
  created_at: Date;
}

/** Failed posts in a row after which a config is dropped (its webhook is gone). */
export const MAX_POST_FAILURES = 5;

interface PushConfigDoc extends PushConfig {
  /** `tenant/task_id/config_id` */
  _id: string;
}

const pushConfigSchema = new Schema<PushConfigDoc>(
  {
    _id: { type: String, required: true },
    tenant: { type: String, required: true },
    task_id: { type: String, required: true },
    config_id: { type: String, required: true },
    url: { type: String, required: true },
    token: { type: String },
    authentication: { type: new Schema({ scheme: String, credentials: String }, { _id: false }) },
    last_state: { type: String, default: '' },
    failures: { type: Number, default: 0 },
    created_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'a2a_push_configs' },
);
pushConfigSchema.index({ tenant: 1, task_id: 1 });
pushConfigSchema.index({ created_at: 1 });

export type CreateResult =
  { kind: 'created'; config: PushConfig } | { kind: 'too_many'; limit: number; per: 'task' | 'tenant' };

const idOf = (tenant: string, taskId: string, configId: string) => `${tenant}/${taskId}/${configId}`;

function plain(doc: PushConfigDoc): PushConfig {
  const { _id, ...config } = doc;
  return config;
}

export class PushConfigStore {
  readonly model: Model<PushConfigDoc>;

  constructor(
    connection: Connection,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.model = model(connection, 'A2aPushConfig', pushConfigSchema);
  }

  /** Stores the config (replacing one of the same id), within the bounds. */
  async create(config: Omit<PushConfig, 'last_state' | 'failures' | 'created_at'>): Promise<CreateResult> {
    const _id = idOf(config.tenant, config.task_id, config.config_id);
    const replacing = await this.model.exists({ _id });
    if (!replacing) {
      if ((await this.model.countDocuments({ tenant: config.tenant, task_id: config.task_id })) >= MAX_CONFIGS_PER_TASK)
        return { kind: 'too_many', limit: MAX_CONFIGS_PER_TASK, per: 'task' };
      if ((await this.model.countDocuments({ tenant: config.tenant })) >= MAX_CONFIGS_PER_TENANT)
        return { kind: 'too_many', limit: MAX_CONFIGS_PER_TENANT, per: 'tenant' };
    }
    const doc: PushConfigDoc = { _id, ...config, last_state: '', failures: 0, created_at: this.now() };
    await this.model.replaceOne({ _id }, doc, { upsert: true });
    return { kind: 'created', config: plain(doc) };
  }

  async get(tenant: string, taskId: string, configId: string): Promise<PushConfig | undefined> {
    const doc = await this.model.findById(idOf(tenant, taskId, configId)).lean<PushConfigDoc>();
    return doc ? plain(doc) : undefined;
  }

  async list(tenant: string, taskId: string): Promise<PushConfig[]> {
    const docs = await this.model
      .find({ tenant, task_id: taskId })
      .sort({ created_at: 1 })
      .limit(MAX_CONFIGS_PER_TASK)
      .lean<PushConfigDoc[]>();
    return docs.map(plain);
  }

  /** True when there was such a config. */
  async delete(tenant: string, taskId: string, configId: string): Promise<boolean> {
    return (await this.model.deleteOne({ _id: idOf(tenant, taskId, configId) })).deletedCount > 0;
  }

  /** Configs to look at, the oldest first. */
  async waiting(limit: number): Promise<PushConfig[]> {
    const docs = await this.model.find({}).sort({ created_at: 1 }).limit(limit).lean<PushConfigDoc[]>();
    return docs.map(plain);
  }

  /** Claims the post of `state` to the config: true for the one replica whose update moved it from `from`. */
  async claim(config: PushConfig, from: string, state: string): Promise<boolean> {
    const result = await this.model.updateOne(
      { _id: idOf(config.tenant, config.task_id, config.config_id), last_state: from },
      { $set: { last_state: state } },
    );
    return result.modifiedCount > 0;
  }

  /** A claimed post failed: the state goes back so that the next round posts it again, until MAX_POST_FAILURES. */
  async failed(config: PushConfig, claimed: string): Promise<void> {
    const _id = idOf(config.tenant, config.task_id, config.config_id);
    if (config.failures + 1 >= MAX_POST_FAILURES) {
      await this.model.deleteOne({ _id });
      return;
    }
    await this.model.updateOne(
      { _id, last_state: claimed },
      { $set: { last_state: config.last_state }, $inc: { failures: 1 } },
    );
  }

  /** A post went through: the failures in a row start over. */
  async posted(config: PushConfig): Promise<void> {
    if (config.failures > 0)
      await this.model.updateOne(
        { _id: idOf(config.tenant, config.task_id, config.config_id) },
        { $set: { failures: 0 } },
      );
  }

  /** The task ended and its final state was posted (or it is gone): the config goes. */
  async forget(config: PushConfig): Promise<void> {
    await this.model.deleteOne({ _id: idOf(config.tenant, config.task_id, config.config_id) });
  }
}
