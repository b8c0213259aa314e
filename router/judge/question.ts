/**
 * What a judge is asked (docs/routing.md, "The judge"): does this capability do what the request asks, yes or no.
 * The capability is shown as its card draws its border: what it does, requests it takes (examples), requests it
 * must not take (counter-examples, and lessons: requests its agents reported misrouted) and what its description
 * says it does not do. The judge reads the answer instead of generating it: P(yes) against P(no) as the first token, a signal the router combines with the head's
 * score (decision.ts). A choice among the top candidates ("A, B, or none") was tried first and dropped: the local
 * 1.5B model's letter probabilities were nearly flat and favoured positions (docs/benchmarks.md).
 */
import type { FillRequest } from '../params/fill-prompt';
import type { JudgeCatalogue, WarmUpStatus } from './warm-up';
import { humanName, type CapabilityCandidate } from '../candidates';
import { exclusionClauses } from '../head/exclusions';

/**
 * Examples shown: up to ten. More of a capability's own requests is what lets the model tell a right answer from an
 * out-of-scope request: ten rather than three raised that separation on CLINC150's narrow calls (ten examples per
 * intent; AUC 0.82 → 0.87) and a little on zh/en dev (five per card; right answers against near misses 0.90 → 0.92),
 * for longer prompts (CLINC150's judged decisions, p50 0.6 → 1.0 s). docs/benchmarks.md, the judge.
 */
const EXAMPLES_SHOWN = 10;
/** Counter-examples shown: enough to show the border, short enough to stay fast. */
const COUNTER_EXAMPLES_SHOWN = 3;
/** Lessons shown (requests agents reported misrouted to the capability, store/misroutes.ts): the latest ones. */
const LESSONS_SHOWN = 3;
/** The request is cut here (as for parameter extraction), so a long one cannot fill the model's context. */
const INTENT_SHOWN = 1_000;

export interface JudgeQuestion {
  intent: string;
  candidate: CapabilityCandidate;
}

export const SYSTEM_PROMPT =
  'You check whether a service handles a request. Answer yes only when the service does what the request asks. ' +
  'A request that asks for something the service says it does not do, that belongs to another service, or that ' +
  'is unrelated gets no. Answer yes or no.';

function quoted(texts: readonly string[]): string {
  return texts.map((t) => `"${t}"`).join('; ');
}

/** The capability as the judge reads it. */
export function cardText(candidate: CapabilityCandidate): string {
  const { capability } = candidate;
  const lines = [
    `Service: ${candidate.agent_name} — ${humanName(capability.name)}`,
    `What it does: ${capability.description}`,
  ];
  if (capability.examples.length > 0)
    lines.push(`Requests it takes, e.g.: ${quoted(capability.examples.slice(0, EXAMPLES_SHOWN))}`);
  // A lesson is a counter-example learned from an agent's report: the judge reads it like one (on zh/en dev this did
  // not carry over to other misroutes: docs/benchmarks.md, "Misroute lessons").
  const counter = [
    ...(capability.counter_examples ?? []).slice(0, COUNTER_EXAMPLES_SHOWN),
    ...(candidate.misroutes ?? []).slice(-LESSONS_SHOWN),
  ];
  if (counter.length > 0) lines.push(`Requests it does not take, e.g.: ${quoted(counter)}`);
  const excluded = exclusionClauses(capability.description);
  if (excluded.length > 0) lines.push(`It does NOT: ${excluded.join('; ')}`);
  return lines.join('\n');
}

/**
 * The user turn in two parts: the card (the same for every judgement of a capability, so the local judge keeps it
 * evaluated: prefix-slots.ts), then the request and the question.
 */
export function questionParts(question: JudgeQuestion): { card: string; request: string } {
  return {
    card: `${cardText(question.candidate)}\n\nRequest:`,
    request: ` ${question.intent.slice(0, INTENT_SHOWN)}\n\nDoes this service do what the request asks? Answer yes or no.`,
  };
}

export function questionText(question: JudgeQuestion): string {
  const { card, request } = questionParts(question);
  return card + request;
}

/** Whether a first token means yes, no, or neither ("Yes", " no", "YES."…). */
export function answerWord(token: string): 'yes' | 'no' | undefined {
  const word = token
    .trim()
    .toLowerCase()
    .replace(/[.!,:]$/, '');
  return word === 'yes' ? 'yes' : word === 'no' ? 'no' : undefined;
}

/** P(yes) renormalised over yes and no; undefined (the judge abstains) when neither has any mass. */
export function yesProbability(yes: number, no: number): number | undefined {
  const total = yes + no;
  return total > 0 ? yes / total : undefined;
}

/** A judge: a model that reads the question and gives P(yes), or undefined when it did not answer yes or no. */
export interface JudgeProvider {
  /** For the explanation and the cache key, e.g. `local:model.gguf`. */
  readonly name: string;
  judge(question: JudgeQuestion): Promise<number | undefined>;
  /** The request's values of the wanted fields (fill-schema.ts), where the provider can generate them. */
  fill?(request: FillRequest, signal: AbortSignal): Promise<Record<string, unknown>>;
  /** Holds a catalogue's cards ahead of their judgements, in the background (the local judge: warm-up.ts). */
  hold?(catalogue: JudgeCatalogue): Promise<void>;
  /** How far that warm-up is. */
  warming?(): WarmUpStatus | undefined;
  close?(): Promise<void>;
}
