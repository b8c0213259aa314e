/**
 * Words only a card's exclusions use. A card that says "Does not reset corporate email, VPN, OA…" names what its
 * capability leaves out; when no capability of the catalogue claims such a word in its own texts (its name, tags,
 * examples, and its agent's and its own description with the exclusions taken out), a request that names it asks
 * for what this card excludes and no card offers. Such a request reads like the capability's own requests in every
 * other word ("reset my VPN password"), so the vector border (card-borders.ts) lets it through; the word does not.
 * From the card alone: nothing here was listed by hand, and a word another card claims is never a fence.
 *
 * A fence names what is excluded, so one of general Chinese's most common words (能否, 具体, 用于) is none: a request
 * for the card's own service says them as often as any other.
 */
import type { CapabilityCandidate } from '../candidates';
import { isCommonChineseWord, words } from '../words';
import { excludedTexts, exclusionClauses } from './exclusions';

/** Per capability key: each fence word, with the exclusion clause that names it. */
export type FenceWords = ReadonlyMap<string, ReadonlyMap<string, string>>;

/**
 * Content words long enough to name something: two Chinese characters, three Latin letters. A request's are read
 * once and checked against every card (card-borders.ts).
 */
export function contentWords(text: string): string[] {
  return words(text).filter((w) => (/^[a-z]/.test(w) ? w.length >= 3 : w.length >= 2));
}

function withoutClauses(text: string): string {
  return exclusionClauses(text).reduce((rest, clause) => rest.split(clause).join(' '), text);
}

/** The texts in which a card says what its capability does. */
function ownTexts(candidate: CapabilityCandidate): string[] {
  const { capability } = candidate;
  return [
    capability.name.replace(/_/g, ' '),
    withoutClauses(capability.description),
    withoutClauses(candidate.agent_description),
    ...capability.tags,
    ...capability.examples,
  ];
}

export function fenceWordsOf(candidates: readonly CapabilityCandidate[]): FenceWords {
  const claimed = new Set(candidates.flatMap((c) => ownTexts(c).flatMap(contentWords)));
  const fences = new Map<string, Map<string, string>>();
  for (const candidate of candidates) {
    const named = new Map<string, string>();
    for (const clause of excludedTexts(candidate))
      for (const word of contentWords(clause))
        if (!claimed.has(word) && !isCommonChineseWord(word) && !named.has(word)) named.set(word, clause);
    if (named.size > 0) fences.set(candidate.key, named);
  }
  return fences;
}

/** The first fence word among the request's words, with its clause; undefined when it names none. */
export function namedFence(
  said: readonly string[],
  fences: ReadonlyMap<string, string> | undefined,
): { word: string; clause: string } | undefined {
  if (!fences) return undefined;
  for (const word of said) {
    const clause = fences.get(word);
    if (clause) return { word, clause };
  }
  return undefined;
}
