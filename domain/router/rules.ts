/**
 * The rules stage: a capability's tags (and its agent's) act as keywords. A Chinese tag matches when the intent
 * contains it; an English tag when every one of its words is among the intent's words. Each match adds a small
 * bonus to the semantic score: rules sharpen a choice, they do not make one on their own.
 */
import type { CapabilityCandidate } from './candidates';
import { containsCjk, stem, words } from './text';

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

export function tagMatches(tag: string, intent: PreparedIntent): boolean {
  const lower = tag.toLowerCase().normalize('NFKC').trim();
  if (!lower) return false;
  if (containsCjk(lower)) return intent.lower.includes(lower);
  const tagWords = lower.split(/[\s_\-/]+/).filter(Boolean).map(stem);
  return tagWords.length > 0 && tagWords.every((w) => intent.words.has(w));
}

export function ruleMatch(candidate: CapabilityCandidate, intent: PreparedIntent): RuleMatch {
  const own = candidate.capability.tags.filter((t) => tagMatches(t, intent));
  const agentLevel = candidate.agent_tags.filter((t) => !own.includes(t) && tagMatches(t, intent));
  const bonus = Math.min(MAX_RULE_BONUS, own.length * TAG_BONUS + agentLevel.length * (TAG_BONUS / 2));
  return { bonus, matched: [...own, ...agentLevel] };
}
