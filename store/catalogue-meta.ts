/**
 * The `catalogue_meta` collection: one change counter that every catalogue change bumps and per-process indexes
 * poll (no change streams needed).
 */
import { Schema, type Model } from 'mongoose';

export interface CatalogueMetaDoc {
  _id: string;
  version: number;
}

export const metaSchema = new Schema<CatalogueMetaDoc>(
  { _id: { type: String, required: true }, version: { type: Number, required: true } },
  { versionKey: false, collection: 'catalogue_meta' },
);

export type CatalogueMetaModel = Model<CatalogueMetaDoc>;

export const CATALOGUE_META_ID = 'catalogue';

/**
 * Increments the change counter. Concurrent first upserts can collide on the `_id` (E11000), so the counter is
 * created once at start-up ({@link ensureCounter}) and a collision here is retried as a plain update.
 */
export async function bumpVersion(meta: CatalogueMetaModel): Promise<void> {
  try {
    await meta.updateOne({ _id: CATALOGUE_META_ID }, { $inc: { version: 1 } }, { upsert: true });
  } catch (error) {
    if ((error as { code?: number }).code !== 11000) throw error;
    await meta.updateOne({ _id: CATALOGUE_META_ID }, { $inc: { version: 1 } });
  }
}

/** Creates the change counter if it does not exist yet. */
export async function ensureCounter(meta: CatalogueMetaModel): Promise<void> {
  try {
    await meta.create({ _id: CATALOGUE_META_ID, version: 0 });
  } catch (error) {
    if ((error as { code?: number }).code !== 11000) throw error;
  }
}

export async function catalogueVersion(meta: CatalogueMetaModel): Promise<number> {
  const counter = await meta.findById(CATALOGUE_META_ID).lean();
  return counter?.version ?? 0;
}
