/**
 * What a card says a capability does not do. Descriptions often draw their own border ("不开发票", "Does not
 * provide historical weather"); each such clause, with its negation taken off, is a request the capability must
 * not take, so the head learns it as evidence against that capability (never as a label for another one).
 */
import type { CapabilityCandidate } from '../candidates';

/**
 * A negation that opens a Chinese clause: 不, 不能, 无法, 并不, 也不… (after an optional 也/并/但/且/亦), but not 不 in a
 * word that is no negation (不同, 不少, 不仅…) nor in 不只/不限 ("not only", "not limited to"), which widen the scope.
 */
const ZH_NEGATION =
  /^(?:也|并|但|且|亦|还)?(?:不能|不会|不可|不支持|不提供|不处理|不负责|不接受|不直接|不做|不得|无法|不(?![同少错断久仅管论过但然如止是只限]))(?=\p{Script=Han})/u;
/** An English clause that opens with a negation (straight or typographic apostrophe), but not "not only". */
const EN_NEGATION =
  /^(?:it |this |and |but |also )*(?:does not|doesn['’]t|do not|don['’]t|cannot|can['’]t|will not|won['’]t|is not|isn['’]t|never|not)\s+(?!only\b)/i;

/** Parenthesised asides ("（见物流Agent的track_package）") name who does it instead, not what is excluded. */
function withoutAsides(text: string): string {
  return text.replace(/[（(][^）)]*[）)]/g, ' ');
}

/**
 * Clauses, with "、" lists split where each item has its own negation ("不开发票、不追踪物流") and kept whole where
 * one negation governs the list ("不能修改、换开或作废已开具的发票").
 */
function chineseClauses(text: string): string[] {
  return text.split(/[。；;，,！!？?\n]/).flatMap((clause) => {
    const items: string[] = [];
    for (const piece of clause.split('、')) {
      if (items.length > 0 && !ZH_NEGATION.test(piece.trim())) items[items.length - 1] += `、${piece}`;
      else items.push(piece);
    }
    return items;
  });
}

/** Sentences: after ASCII punctuation and a space (not inside "e.g." or "3.5"), after Chinese punctuation, at a line break. */
function englishSentences(text: string): string[] {
  return text.split(/(?<=[.;!?])\s+|;\s*|[。；！？\n]\s*/);
}

export function exclusionClauses(description: string): string[] {
  const text = withoutAsides(description);
  const out: string[] = [];
  for (const clause of chineseClauses(text)) {
    const trimmed = clause.trim();
    const match = trimmed.match(ZH_NEGATION);
    if (match && trimmed.length - match[0].length >= 2) out.push(trimmed.slice(match[0].length));
  }
  for (const sentence of englishSentences(text)) {
    const trimmed = sentence.trim().replace(/[.;!?]+$/, '');
    const match = trimmed.match(EN_NEGATION);
    if (match && trimmed.length - match[0].length >= 6) out.push(trimmed.slice(match[0].length));
  }
  return [...new Set(out)];
}

/** What the card says the capability does not do: its own description's exclusions and its agent's. */
export function excludedTexts(candidate: CapabilityCandidate): string[] {
  return [
    ...new Set([
      ...exclusionClauses(candidate.capability.description),
      ...exclusionClauses(candidate.agent_description),
    ]),
  ];
}
