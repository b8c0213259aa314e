/**
 * The similarity stage with a trained head: while a catalogue's head trains (in a worker), the plain similarity
 * matcher answers; once it is ready, `classify` gives the head's calibrated probabilities. A request that comes
 * right after a catalogue change waits a bounded time for the head, so small catalogues are always served by it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, humanName, type CapabilityCandidate } from '../candidates';
import type { EmbeddingProvider } from '../embeddings/provider';
import type { IntentMatcher, MatcherFactory } from '../matcher';
import type { VectorCache } from '../semantic-index';
import { containsCjk } from '../text';
import { exclusionClauses } from './exclusions';
import { predict, type HeadModel, type HeadOptions } from './head';
import { trainInWorker } from './head-trainer';

/** Generic out-of-scope requests shipped with Agent-Reach (CC0, see the file's header). */
export function genericOutOfScope(): string[] {
  return readFileSync(join(__dirname, 'out-of-scope.txt'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
}

/** What a capability's class is learned from: its examples, and its card's name, description and tags. */
export function trainingTexts(candidate: CapabilityCandidate): string[] {
  const { capability } = candidate;
  return [
    ...capability.examples,
    describe(candidate),
    humanName(capability.name),
    ...(capability.description ? [capability.description] : []),
    ...(capability.tags.length ? [capability.tags.join(', ')] : []),
  ];
}

/** What the card says the capability does not do: its own description's exclusions and its agent's. */
export function excludedTexts(candidate: CapabilityCandidate): string[] {
  return [...new Set([...exclusionClauses(candidate.capability.description), ...exclusionClauses(candidate.agent_description)])];
}

export interface HeadMatcherOptions {
  /** How long a request waits for a head still training before the similarity matcher answers it. */
  waitMs: number;
  head?: Partial<HeadOptions>;
  onError?: (error: Error) => void;
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref());
}

export function headMatcherFactory(embedder: EmbeddingProvider, similarity: MatcherFactory, cache: VectorCache, options: HeadMatcherOptions): MatcherFactory {
  const generic = genericOutOfScope();
  return async (candidates) => {
    const fallback = await similarity(candidates);
    let head: HeadModel | undefined;
    const training = (async () => {
      const texts = candidates.map(trainingTexts);
      const excluded = candidates.map(excludedTexts);
      const counter = candidates.flatMap((c) => c.capability.counter_examples ?? []);
      const flat = await cache.embed(embedder, [...texts.flat(), ...excluded.flat(), ...generic, ...counter]);
      let offset = 0;
      const take = (n: number) => flat.slice(offset, (offset += n));
      const vectors = texts.map((t) => take(t.length));
      const classes = candidates.map((c, i) => ({ key: c.key, vectors: vectors[i]!, chinese: texts[i]!.map(containsCjk), excluded: take(excluded[i]!.length) }));
      head = await trainInWorker({ classes, none: take(generic.length + counter.length), ...(options.head ? { options: options.head } : {}) });
      return head;
    })();
    training.catch((error: Error) => options.onError?.(error));
    const matcher: IntentMatcher = {
      provider: `${embedder.id}+head`,
      score: (intent) => fallback.score(intent),
      async classify(intent) {
        const ready = head ?? (await Promise.race([training.catch(() => undefined), delay(options.waitMs)]));
        return ready ? predict(ready, await embedder.embedQuery(intent)) : undefined;
      },
      ready: () => training.then(() => undefined, () => undefined),
    };
    return matcher;
  };
}
