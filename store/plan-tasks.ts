/**
 * The `a2a_plan_tasks` collection: plans the A2A face showed (skill `plan_and_run`, docs/a2a.md), waiting for the
 * caller's yes or no, and, once confirmed, which chain each task is and its context. Bounded: a plan waits for its
 * answer until `expires_at` (PLAN_TTL_MS); a confirmed one is kept as long as the caller asks when confirming (the
 * idempotency window); past it a task reads as not found and is deleted by the tenant's next plan; a tenant has at
 * most MAX_PLAN_TASKS_PER_TENANT.
 */
import { Schema, type Connection, type Model } from 'mongoose';
import { model } from './model-once';

export const MAX_PLAN_TASKS_PER_TENANT = 10_000;

export interface PlanTask {
  tenant: string;
  /** The task id, also the chain id the plan runs under. */
  task_id: string;
  context_id: string;
  /** Who planned it (api/a2a/plan-tasks.ts): only the same caller may confirm it. */
  caller_id: string;
  /** The plan as shown (api/chain-planning.ts PlanAnswer), as JSON text: its templates hold `$ref` keys. */
  plan_json: string;
  state: 'input_required' | 'declined' | 'confirmed';
  created_at: Date;
  expires_at: Date;
}

interface PlanTaskDoc extends PlanTask {
  /** `tenant/task_id` */
  _id: string;
}

const planTaskSchema = new Schema<PlanTaskDoc>(
  {
    _id: { type: String, required: true },
    tenant: { type: String, required: true },
    task_id: { type: String, required: true },
    context_id: { type: String, required: true },
    caller_id: { type: String, required: true },
    plan_json: { type: String, required: true },
    state: { type: String, required: true },
    created_at: { type: Date, required: true },
    expires_at: { type: Date, required: true },
  },
  { versionKey: false, collection: 'a2a_plan_tasks' },
);
planTaskSchema.index({ tenant: 1, expires_at: 1 });

const idOf = (tenant: string, taskId: string) => `${tenant}/${taskId}`;

function plain(doc: PlanTaskDoc): PlanTask {
  const { _id, ...task } = doc;
  return task;
}

export type CreatePlanTaskResult =
  { kind: 'created' | 'existing'; task: PlanTask } | { kind: 'too_many'; limit: number };

export class PlanTaskStore {
  readonly model: Model<PlanTaskDoc>;

  constructor(
    connection: Connection,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.model = model(connection, 'A2aPlanTask', planTaskSchema);
  }

  /** Stores a plan waiting for its answer; the same task id again gives the one there (a repeated message). */
  async create(
    task: Omit<PlanTask, 'state' | 'created_at' | 'expires_at'>,
    ttlMs: number,
  ): Promise<CreatePlanTaskResult> {
    const now = this.now();
    await this.model.deleteMany({ tenant: task.tenant, expires_at: { $lt: now } });
    const existing = await this.get(task.tenant, task.task_id);
    if (existing) return { kind: 'existing', task: existing };
    if ((await this.model.countDocuments({ tenant: task.tenant })) >= MAX_PLAN_TASKS_PER_TENANT)
      return { kind: 'too_many', limit: MAX_PLAN_TASKS_PER_TENANT };
    const doc: PlanTaskDoc = {
      _id: idOf(task.tenant, task.task_id),
      ...task,
      state: 'input_required',
      created_at: now,
      expires_at: new Date(now.getTime() + ttlMs),
    };
    await this.model.create(doc);
    return { kind: 'created', task: plain(doc) };
  }

  /** The plan task, unless it expired. */
  async get(tenant: string, taskId: string): Promise<PlanTask | undefined> {
    const doc = await this.model.findById(idOf(tenant, taskId)).lean<PlanTaskDoc>();
    return doc && doc.expires_at >= this.now() ? plain(doc) : undefined;
  }

  /** The caller said no: the task reads canceled until it expires. False when it no longer waits. */
  async decline(tenant: string, taskId: string): Promise<boolean> {
    return (
      (
        await this.model.updateOne(
          { _id: idOf(tenant, taskId), state: 'input_required' },
          { $set: { state: 'declined' } },
        )
      ).modifiedCount > 0
    );
  }

  /** The caller said yes and its chain started: the task is its chain now, kept `keepMs`. */
  async confirm(tenant: string, taskId: string, keepMs: number): Promise<void> {
    await this.model.updateOne(
      { _id: idOf(tenant, taskId), state: 'input_required' },
      { $set: { state: 'confirmed', expires_at: new Date(this.now().getTime() + keepMs) } },
    );
  }
}
