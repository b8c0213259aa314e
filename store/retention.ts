/** Deleting what has outlived its use. FerretDB has no TTL indexes, so the sweeper calls this periodically. */
import type { Model } from 'mongoose';

/** How many documents one call deletes at most: a backlog is worked off over several sweeps, never in one big delete. */
export const RETENTION_BATCH = 1_000;

/** Deletes up to `limit` documents whose date `field` is before `cutoff`; returns how many went. */
export async function deleteOlderThan<T>(
  model: Model<T>,
  field: string,
  cutoff: Date,
  limit = RETENTION_BATCH,
): Promise<number> {
  const stale = await model
    .find({ [field]: { $lt: cutoff } } as never, { _id: 1 })
    .limit(limit)
    .lean<{ _id: unknown }[]>();
  if (stale.length === 0) return 0;
  const { deletedCount } = await model.deleteMany({ _id: { $in: stale.map((d) => d._id) } } as never);
  return deletedCount;
}
