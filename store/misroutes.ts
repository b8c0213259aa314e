/**
 * Requests an agent reported as misrouted to one of its capabilities (a `misrouted` receipt), one document per
 * tenant, capability and request text. Each becomes a lesson — evidence against that capability in its head, and a
 * border its card draws (router/head/card-borders.ts) — once reported `MisroutePolicy.applyAfter` times, or when an
 * operator applies it; an operator can also dismiss it. Bounded per tenant: past `maxPerTenant`, the least recently
 * reported pending and dismissed ones go first, then the oldest lessons. Plain documents, single-document writes
 * (FerretDB).
 */
import { createHash } from 'node:crypto';
import { Schema, type Connection, type Model } from 'mongoose';
import { model } from './model-once';

export type MisrouteState = 'pending' | 'applied' | 'dismissed';

export interface MisrouteDoc {
  _id: string;
  tenant: string;
  /** `agent_id/capability` the request was routed to. */
  capability: string;
  text: string;
  reports: number;
  /** The latest messages reported (a few, for an operator to look up). */
  message_ids: string[];
  state: MisrouteState;
  first_reported_at: Date;
  last_reported_at: Date;
  /** When it became applied or dismissed, and by whom (`auto` after enough reports). */
  decided_at?: Date;
  decided_by?: string;
}

const misrouteSchema = new Schema<MisrouteDoc>(
  {
    _id: { type: String, required: true },
    tenant: { type: String, required: true },
    capability: { type: String, required: true },
    text: { type: String, required: true },
    reports: { type: Number, required: true },
    message_ids: { type: [String], required: true },
    state: { type: String, enum: ['pending', 'applied', 'dismissed'], required: true },
    first_reported_at: { type: Date, required: true },
    last_reported_at: { type: Date, required: true },
    decided_at: Date,
    decided_by: String,
  },
  { versionKey: false, collection: 'misroutes' },
);
misrouteSchema.index({ tenant: 1, state: 1, last_reported_at: 1 });

export interface MisroutePolicy {
  /** Reports after which a lesson applies by itself; 0: only an operator applies it. */
  applyAfter: number;
  maxPerTenant: number;
}

export const DEFAULT_MISROUTE_POLICY: MisroutePolicy = { applyAfter: 3, maxPerTenant: 1_000 };

/** Longest request text kept (longer ones are cut: a lesson is about what the request asks). */
export const MISROUTE_TEXT_MAX = 1_000;
/** Message ids kept per lesson. */
const MESSAGE_IDS_KEPT = 5;

export function misrouteId(tenant: string, capability: string, text: string): string {
  return createHash('sha256').update(`${tenant}\n${capability}\n${text}`).digest('base64url').slice(0, 32);
}

export class MisrouteStore {
  readonly model: Model<MisrouteDoc>;

  constructor(
    connection: Connection,
    private readonly policy: MisroutePolicy = DEFAULT_MISROUTE_POLICY,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.model = model(connection, 'Misroute', misrouteSchema);
  }

  /**
   * One report of `text` misrouted to `capability`. The same message reported again counts once. Returns the
   * lesson as stored afterwards.
   */
  async report(tenant: string, capability: string, intent: string, messageId: string): Promise<MisrouteDoc> {
    return this.upsert(tenant, capability, intent, (current, now) => {
      if (current?.message_ids.includes(messageId)) return undefined;
      const reports = (current?.reports ?? 0) + 1;
      const applies =
        current?.state !== 'dismissed' &&
        current?.state !== 'applied' &&
        this.policy.applyAfter > 0 &&
        reports >= this.policy.applyAfter;
      return {
        reports,
        message_ids: [...(current?.message_ids ?? []), messageId].slice(-MESSAGE_IDS_KEPT),
        last_reported_at: now,
        ...(applies ? { state: 'applied', decided_at: now, decided_by: 'auto' } : {}),
      };
    });
  }

  /**
   * The document of (tenant, capability, request text) as `change` makes it from the stored one (none: a new
   * report); `change` answering undefined leaves it as it is. A new document may push the oldest out (trim).
   */
  private async upsert(
    tenant: string,
    capability: string,
    intent: string,
    change: (current: MisrouteDoc | undefined, now: Date) => Partial<MisrouteDoc> | undefined,
  ): Promise<MisrouteDoc> {
    const text = intent.trim().slice(0, MISROUTE_TEXT_MAX);
    const _id = misrouteId(tenant, capability, text);
    const now = this.now();
    const current = await this.model.findById(_id).lean<MisrouteDoc>();
    const fields = change(current ?? undefined, now);
    if (current && !fields) return current;
    const fresh: MisrouteDoc = {
      _id,
      tenant,
      capability,
      text,
      reports: 0,
      message_ids: [],
      state: 'pending',
      first_reported_at: now,
      last_reported_at: now,
    };
    const next: MisrouteDoc = { ...(current ?? fresh), ...fields };
    await this.model.replaceOne({ _id }, next, { upsert: true });
    if (!current) await this.trim(tenant);
    return next;
  }

  /** Past the bound, the least recently reported reports are forgotten: pending and dismissed ones first, then lessons. */
  private async trim(tenant: string): Promise<void> {
    let excess = (await this.model.countDocuments({ tenant })) - this.policy.maxPerTenant;
    for (const states of [['pending', 'dismissed'], ['applied']]) {
      if (excess <= 0) return;
      const oldest = await this.model
        .find({ tenant, state: { $in: states } })
        .sort({ last_reported_at: 1 })
        .limit(excess)
        .select({ _id: 1 })
        .lean<{ _id: string }[]>();
      await this.model.deleteMany({ _id: { $in: oldest.map((d) => d._id) } });
      excess -= oldest.length;
    }
  }

  async list(tenant: string, state?: MisrouteState, limit = 100): Promise<MisrouteDoc[]> {
    return this.model
      .find({ tenant, ...(state ? { state } : {}) })
      .sort({ last_reported_at: -1 })
      .limit(limit)
      .lean<MisrouteDoc[]>();
  }

  /**
   * An operator's lesson, given directly (a misroute seen in a trace): applied at once, as one report. Teaching
   * again what is known changes only who decided.
   */
  async teach(tenant: string, capability: string, intent: string, by: string): Promise<MisrouteDoc> {
    return this.upsert(tenant, capability, intent, (current, now) => ({
      reports: current?.reports || 1,
      state: 'applied',
      decided_at: now,
      decided_by: by,
    }));
  }

  /** An operator's decision; undefined when the tenant has no such lesson. */
  async decide(
    tenant: string,
    id: string,
    state: 'applied' | 'dismissed',
    by: string,
  ): Promise<MisrouteDoc | undefined> {
    const current = await this.model.findOne({ _id: id, tenant }).lean<MisrouteDoc>();
    if (!current) return undefined;
    const next = { ...current, state, decided_at: this.now(), decided_by: by };
    await this.model.replaceOne({ _id: id }, next);
    return next;
  }

  /** The tenant's applied lessons by capability (what the router learns from). */
  async applied(tenant: string): Promise<Map<string, string[]>> {
    const docs = await this.model
      .find({ tenant, state: 'applied' })
      .sort({ _id: 1 })
      .select({ capability: 1, text: 1 })
      .lean<Pick<MisrouteDoc, 'capability' | 'text'>[]>();
    const byCapability = new Map<string, string[]>();
    for (const d of docs) byCapability.set(d.capability, [...(byCapability.get(d.capability) ?? []), d.text]);
    return byCapability;
  }
}
