/**
 * The rules stage: a capability's tags (and its agent's) act as keywords. A Chinese tag matches when the intent
 * contains it; an English tag when every one of its words is among the intent's words. Each match adds a small
 * bonus to the semantic score: rules sharpen a choice, they do not make one on their own.
 */
import type { CapabilityCandidate } from './candidates';
import { containsCjk, stem, words } from './words';

/** Bonus per matching capability tag; an agent-level tag counts half. */
export const TAG_BONUS = 0.03;
export const MAX_RULE_BONUS = 0.09;

export interface RuleMatch {
  bonus: number;
  matched: string[];
}

export interface PreparedIntent {
  lower: string;
  words: Set<string>;
}

export function prepareIntent(intent: string): PreparedIntent {
  return { lower: intent.toLowerCase().normalize('NFKC'), words: new Set(words(intent)) };
}

/** A tag made ready for matching: a Chinese phrase to look for, or the stemmed words that must all be present. */
interface PreparedTag {
  tag: string;
  phrase?: string;
  words?: string[];
}

function prepareTag(tag: string): PreparedTag {
  const lower = tag.toLowerCase().normalize('NFKC').trim();
  if (!lower) return { tag, words: [] };
  if (containsCjk(lower)) return { tag, phrase: lower };
  return {
    tag,
    words: lower
      .split(/[\s_\-/]+/)
      .filter(Boolean)
      .map(stem),
  };
}

function matches(prepared: PreparedTag, intent: PreparedIntent): boolean {
  if (prepared.phrase) return intent.lower.includes(prepared.phrase);
  return prepared.words!.length > 0 && prepared.words!.every((w) => intent.words.has(w));
}

export function tagMatches(tag: string, intent: PreparedIntent): boolean {
  return matches(prepareTag(tag), intent);
}

/** Prepared tags per tag list: the catalogue copy keeps its arrays until it reloads, so each is prepared once. */
const preparedLists = new WeakMap<readonly string[], PreparedTag[]>();

function prepared(tags: readonly string[]): PreparedTag[] {
  let list = preparedLists.get(tags);
  if (!list) {
    list = tags.map(prepareTag);
    preparedLists.set(tags, list);
  }
  return list;
}

export function ruleMatch(candidate: CapabilityCandidate, intent: PreparedIntent): RuleMatch {
  const own = prepared(candidate.capability.tags)
    .filter((t) => matches(t, intent))
    .map((t) => t.tag);
  const agentLevel = prepared(candidate.agent_tags)
    .filter((t) => !own.includes(t.tag) && matches(t, intent))
    .map((t) => t.tag);
  const bonus = Math.min(MAX_RULE_BONUS, own.length * TAG_BONUS + agentLevel.length * (TAG_BONUS / 2));
  return { bonus, matched: [...own, ...agentLevel] };
}
