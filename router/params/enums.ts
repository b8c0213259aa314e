/**
 * Enum values by what they mean. Lexically: the value's own words, the labels its property's description lists
 * ("售后类型：退货退款/换货/维修"), what the schema says each value means (`enumDescriptions`, `oneOf` consts with a
 * description, "heat: warm the room up; cool: …" in the property's description) and the bilingual lexicon.
 * Semantically, only when nothing matched lexically and an embedding function is given: the intent against each
 * value's label text, taken only when clearly above the rest.
 */
import { LruCache } from '../../util/lru';
import { LEXICON, UMBRELLA_VALUES } from './lexicon';
import { CJK, nameWords, type PropertySchema } from './schema';

export function enumStrings(schema: PropertySchema): string[] {
  return (schema.enum ?? []).filter((v): v is string => typeof v === 'string');
}

/**
 * Labels an enum's description gives its values, in order: "售后类型：退货退款/换货/维修" for
 * [return_refund, exchange, repair]. Only trusted when the counts agree.
 */
export function describedLabels(schema: PropertySchema, values: string[]): Map<string, string> {
  const labels = new Map<string, string>();
  const listed = (schema.description ?? '')
    .split(/[:：]/)
    .at(-1)!
    .split(/[/、,，|]/)
    .map((s) => s.trim())
    .filter(Boolean);
  if (listed.length === values.length) values.forEach((v, i) => labels.set(v, listed[i]!));
  return labels;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * What the schema says each value means: `enumDescriptions` (or `x-enum-descriptions`) in enum order, else each
 * value named in the property's description followed by ":", "=", "-" or "(" and its meaning, up to the next value.
 */
export function valueDescriptions(schema: PropertySchema, values: string[]): Map<string, string> {
  const out = new Map<string, string>();
  const listed = schema.enumDescriptions ?? schema['x-enum-descriptions'];
  if (Array.isArray(listed) && listed.length === (schema.enum ?? []).length) {
    (schema.enum ?? []).forEach((v, i) => {
      if (typeof v === 'string' && typeof listed[i] === 'string' && listed[i]!.trim()) out.set(v, listed[i]!.trim());
    });
    return out;
  }
  const description = schema.description ?? '';
  const mentions = values
    .map((value) => {
      const m = description.match(new RegExp(`(?<![\\w])${escapeRegExp(value)}\\s*(?:[:：=(（]|-\\s)\\s*`));
      return m ? { value, start: m.index!, body: m.index! + m[0].length } : undefined;
    })
    .filter((m): m is { value: string; start: number; body: number } => !!m)
    .sort((a, b) => a.start - b.start);
  mentions.forEach((m, i) => {
    const end = mentions[i + 1]?.start ?? description.length;
    const text = description
      .slice(m.body, end)
      .replace(/[\s,，;；.。)）]+$/u, '')
      .trim();
    if (text) out.set(m.value, text);
  });
  return out;
}

/** Every label a value answers to, lower-case: its words, its listed label, a short stated meaning, the lexicon. */
export function labelsFor(value: string, described?: string, meaning?: string): string[] {
  const own = value.toLowerCase();
  const labels = new Set([own, own.replace(/[_-]+/g, ' ')]);
  if (described) labels.add(described.toLowerCase());
  for (const part of meaning?.split(/[,，;；、/()（）]/) ?? [])
    if (CJK.test(part) && [...part.trim()].length <= 8) labels.add(part.trim());
  for (const l of LEXICON[own] ?? []) labels.add(l.toLowerCase());
  return [...labels].filter((l) => l.length > 0);
}

const STOP_WORDS = new Set(
  'the a an and or of to in on at for with by from up down out off is are be it its this that than more less most very into within between both all any per via not no when if only also your you their can will may one two'.split(
    ' ',
  ),
);

/** A crude English stem, enough to meet "arrives" with "arrive" and "heating" with "heat". */
export function stem(word: string): string {
  const w = word.toLowerCase();
  const cut = w.replace(/(?:ing|ed|es|ly|s|e)$/, '');
  return cut.length >= 3 ? cut : w;
}

function contentStems(text: string): string[] {
  return (text.toLowerCase().match(/[a-z]{3,}/g) ?? []).filter((w) => !STOP_WORDS.has(w)).map(stem);
}

/**
 * The words of each value's stated meaning that no other value's meaning or name shares ("heat: warm the room up"
 * → warm, room): several of them in the text point at that value.
 */
function distinctiveWords(
  values: string[],
  meanings: Map<string, string>,
  propertyName: string,
): Map<string, string[]> {
  const shared = new Set([...nameWords(propertyName), ...values.flatMap((v) => nameWords(v))].map(stem));
  const stemsOf = new Map(values.map((v) => [v, new Set(contentStems(meanings.get(v) ?? ''))]));
  const out = new Map<string, string[]>();
  for (const v of values) {
    const own = [...stemsOf.get(v)!].filter(
      (w) => !shared.has(w) && !values.some((o) => o !== v && stemsOf.get(o)!.has(w)),
    );
    if (own.length > 0) out.set(v, own);
  }
  return out;
}

const NEGATION_ZH = /[没不未无非别]$/;
const NEGATION_EN = /\b(?:not|no|never|don't|didn't|doesn't|isn't|wasn't|without)\s+$/;

interface Hit {
  value: string;
  strength: number;
  index: number;
}

/** How much a label says: a Chinese label by its characters, an English one by its words (a word ≈ 2 characters). */
function strength(label: string): number {
  return CJK.test(label) ? [...label].length : label.split(/\s+/).length * 2;
}

/** Where `label` occurs in `text` as a whole word (Latin) and not negated right before it; -1 when it does not. */
export function findLabel(text: string, label: string): number {
  let from = 0;
  while (from <= text.length) {
    const at = text.indexOf(label, from);
    if (at < 0) return -1;
    from = at + 1;
    const before = text.slice(Math.max(0, at - 12), at);
    if (!CJK.test(label)) {
      // Whole words only, with their endings ("repaired", "exchanged", "items"); a sign ("$", "€") may touch its
      // number.
      if (/^[a-z0-9]/.test(label) && /[a-z0-9]$/.test(text.slice(0, at))) continue;
      const after = text.slice(at + label.length).replace(/^(?:s|es|d|ed|ing)\b/, '');
      if (/[a-z0-9]$/.test(label) && /^[a-z0-9]/.test(after)) continue;
      if (NEGATION_EN.test(before)) continue;
    } else if (NEGATION_ZH.test(before) && !/^[没不未无非别]/.test(label)) {
      continue;
    }
    return at;
  }
  return -1;
}

/** Each value's best lexical hit in the text. */
export function enumHits(text: string, values: string[], schema: PropertySchema, name = ''): Hit[] {
  const lower = text.toLowerCase();
  const meanings = valueDescriptions(schema, values);
  const described = meanings.size > 0 ? new Map<string, string>() : describedLabels(schema, values);
  const distinctive = distinctiveWords(values, meanings, name);
  const textStems = new Map<string, number>();
  for (const m of lower.matchAll(/[a-z]{3,}/g)) if (!textStems.has(stem(m[0]))) textStems.set(stem(m[0]), m.index!);
  const hits: Hit[] = [];
  for (const value of values) {
    // Evidence adds up over labels that do not overlap: "压坏了…破损" says "damaged" twice.
    const labels = labelsFor(value, described.get(value), meanings.get(value)).sort(
      (a, b) => strength(b) - strength(a),
    );
    const spans: [number, number][] = [];
    let hit: Hit | undefined;
    for (const label of labels) {
      const index = findLabel(lower, label);
      if (index < 0 || spans.some(([s, e]) => index < e && index + label.length > s)) continue;
      spans.push([index, index + label.length]);
      hit = { value, strength: (hit?.strength ?? 0) + strength(label), index: Math.min(hit?.index ?? index, index) };
    }
    // Words of the stated meaning count one each, and only when at least two of them (or its only one) are there.
    const words = distinctive.get(value) ?? [];
    const found = words.filter((w) => textStems.has(w));
    if (found.length >= Math.min(2, words.length) && found.length > 0) {
      const index = Math.min(...found.map((w) => textStems.get(w)!));
      hit = { value, strength: (hit?.strength ?? 0) + found.length, index: Math.min(hit?.index ?? index, index) };
    }
    if (hit) hits.push(hit);
  }
  return hits;
}

/** "min_severity" wants the lowest value named, "max_…" the highest (values listed in ascending order). */
function ordering(name: string): 'min' | 'max' | undefined {
  const words = nameWords(name);
  if (words[0] === 'min' || words[0] === 'minimum') return 'min';
  if (words[0] === 'max' || words[0] === 'maximum') return 'max';
  return undefined;
}

/** Umbrella values that are the union of their siblings: naming every sibling in one clause names them. */
const UNION_VALUES = new Set(['all', 'both']);

/** The hits lie in one clause: "别再发短信也别打电话了", not "电话别打了，短信还能发". */
function oneClause(text: string, hits: Hit[]): boolean {
  const indices = hits.map((h) => h.index);
  return !/[，,。；;！!？?\n]/.test(text.slice(Math.min(...indices), Math.max(...indices)));
}

/**
 * One enum value, or undefined when none or several equally strong ones match (wrong is worse than missing).
 * An umbrella value ("all", "general") wins when named and no single sibling is, or when it is named along with
 * several siblings ("电话短信都别打了"). A union ("all", "both") also wins unnamed when every one of its siblings is
 * named in one clause: "别再发短信也别打电话了" is calls and texts, so all.
 */
export function enumValueLexical(text: string, name: string, schema: PropertySchema): string | undefined {
  const values = enumStrings(schema);
  const hits = enumHits(text, values, schema, name);
  if (hits.length === 0) return undefined;
  const order = ordering(name);
  if (order && hits.length > 1) {
    const sorted = hits.map((h) => values.indexOf(h.value)).sort((a, b) => a - b);
    return values[order === 'min' ? sorted[0]! : sorted.at(-1)!];
  }
  const umbrella = hits.find((h) => UMBRELLA_VALUES.has(h.value));
  const specific = hits.filter((h) => !UMBRELLA_VALUES.has(h.value));
  if (umbrella && specific.length !== 1) return umbrella.value;
  const union = values.find((v) => UNION_VALUES.has(v));
  const siblings = values.filter((v) => !UMBRELLA_VALUES.has(v));
  if (union && specific.length >= 2 && specific.length === siblings.length && oneClause(text, specific)) return union;
  const top = Math.max(...specific.map((h) => h.strength));
  const best = specific.filter((h) => h.strength === top);
  return best.length === 1 ? best[0]!.value : undefined;
}

/** All values named in the text, in the order they are written (for arrays of enum items). */
export function enumValuesLexical(text: string, schema: PropertySchema): string[] {
  return enumHits(text, enumStrings(schema), schema)
    .filter((h) => !UMBRELLA_VALUES.has(h.value))
    .sort((a, b) => a.index - b.index)
    .map((h) => h.value);
}

/** Embeds texts as vectors: the caller's intent as a query, the values' label texts as documents. */
export interface Embedder {
  embedQuery(text: string): Promise<Float32Array>;
  embedDocuments(texts: string[]): Promise<Float32Array[]>;
}

export interface SimilarityRule {
  /** The best value's cosine must reach this. */
  min: number;
  /** And lead the second best by this much. */
  margin: number;
}

/**
 * Fitted for multilingual-e5-small on zh-routing dev with the lexicon removed (a stand-in for wordings nobody
 * wrote down): at a 0.03 lead all 14 values taken were right; at 0.02, 28 of 37 (the rest stated nothing). With
 * the lexicon in place it takes nothing on dev, so it only acts where words fail.
 */
export const DEFAULT_SIMILARITY: SimilarityRule = { min: 0.3, margin: 0.03 };

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return dot / (Math.sqrt(na * nb) || 1);
}

/**
 * What a value means, for the embedding model: its words and what the schema says about it ("premium economy: more
 * legroom than economy", "exchange / 换货"). Not the lexicon: on dev without it, value words alone were right more
 * often (14 of 14 taken at the default margin) than words joined with the property's description (9 of 10).
 */
export function labelText(value: string, schema: PropertySchema): string {
  const values = enumStrings(schema);
  const listed = describedLabels(schema, values).get(value);
  const meaning = valueDescriptions(schema, values).get(value);
  return [value.replace(/[_-]+/g, ' '), listed, meaning].filter(Boolean).join(' / ');
}

/** Label vectors by model and text: a catalogue's values are embedded once, within a bound. */
const labelCache = new WeakMap<Embedder, LruCache<string, Float32Array>>();

async function labelVectors(texts: string[], embedder: Embedder): Promise<Float32Array[]> {
  let cache = labelCache.get(embedder);
  if (!cache) labelCache.set(embedder, (cache = new LruCache(5_000)));
  const missing = [...new Set(texts.filter((t) => !cache.has(t)))];
  if (missing.length > 0) (await embedder.embedDocuments(missing)).forEach((v, i) => cache.set(missing[i]!, v));
  return texts.map((t) => cache.get(t)!);
}

/** The enum value most similar in meaning to the intent (embedded as a query), only when it clearly beats the others. */
export async function enumValueBySimilarity(
  query: Float32Array,
  schema: PropertySchema,
  embedder: Embedder,
  rule = DEFAULT_SIMILARITY,
): Promise<string | undefined> {
  const values = enumStrings(schema).filter((v) => !UMBRELLA_VALUES.has(v));
  if (values.length < 2) return undefined;
  const labels = await labelVectors(
    values.map((v) => labelText(v, schema)),
    embedder,
  );
  const scored = values
    .map((value, i) => ({ value, score: cosine(query, labels[i]!) }))
    .sort((a, b) => b.score - a.score);
  const [best, second] = scored;
  if (!best || best.score < rule.min) return undefined;
  if (second && best.score - second.score < rule.margin) return undefined;
  return best.value;
}
