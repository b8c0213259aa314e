/**
 * A code in the request that only some capabilities take. A request that writes "RF2025030112345" names a refund by
 * the code a refund's own capabilities take (`"refund_id": {"pattern": "^RF\\d{10,20}$"}`); when the head's best
 * capability takes no such code and a near runner-up does, the code settles it between them: "退款RF…到哪一步了" is
 * asked of the refund-status capability, though "退款" reads most like requesting one. From the cards' schemas alone:
 * only patterns that begin with a letter count (a code of its own, not any number), and only among the few best.
 */
import type { CapabilityCandidate } from '../candidates';
import { codeForms, tokensIn } from '../params/identifiers';
import { compilePattern, MAX_PATTERN_INPUT, type PropertySchema } from '../params/schema';
import type { HeadScore } from './head';

/** How far down the head's ranking a capability that takes the code may be: the best few only. */
const RUNNERS_UP = 2;

type Pattern = NonNullable<ReturnType<typeof compilePattern>>;

const patternsByCard = new WeakMap<CapabilityCandidate, Pattern[]>();

/** Patterns of a schema's string values, nested objects and array items included, that begin with a letter. */
function letteredPatterns(schema: unknown, out: Pattern[] = []): Pattern[] {
  if (!schema || typeof schema !== 'object') return out;
  const s = schema as PropertySchema;
  if (typeof s.pattern === 'string' && /^\^?[A-Za-z]/.test(s.pattern)) {
    const re = compilePattern(s.pattern);
    if (re) out.push(re);
  }
  for (const property of Object.values(s.properties ?? {})) letteredPatterns(property, out);
  if (s.items) letteredPatterns(s.items, out);
  return out;
}

function patternsOf(candidate: CapabilityCandidate | undefined): Pattern[] {
  if (!candidate) return [];
  let patterns = patternsByCard.get(candidate);
  if (!patterns) {
    const json = candidate.capability.parameters_json;
    patterns = json ? letteredPatterns(JSON.parse(json) as unknown) : [];
    patternsByCard.set(candidate, patterns);
  }
  return patterns;
}

function takes(candidate: CapabilityCandidate | undefined, code: string): boolean {
  return code.length <= MAX_PATTERN_INPUT && patternsOf(candidate).some((re) => re.test(code));
}

export interface CodePreference {
  code: string;
  /** The head's best capability, which takes no code of the request. */
  from: string;
  /** The runner-up that takes it, now first. */
  to: string;
}

/**
 * The head's ranking with the runner-up that takes a code of the request moved first, in the best's place and
 * probability (the two exchange them), when the best takes none of the request's codes. Unchanged otherwise.
 */
export function preferCodeTaker(
  ranked: readonly HeadScore[],
  candidate: (key: string) => CapabilityCandidate | undefined,
  intent: string,
): { ranked: HeadScore[]; preferred?: CodePreference } {
  const takesCode = (key: string, code: string) => takes(candidate(key), code);
  const few = ranked.slice(0, RUNNERS_UP + 1);
  // Most catalogues have no lettered codes: then the request is not read at all.
  if (!few.some((s) => patternsOf(candidate(s.key)).length > 0)) return { ranked: [...ranked] };
  const codes = tokensIn(intent).flatMap((t) => codeForms(t.text));
  const named = codes.filter((code) => few.some((s) => takesCode(s.key, code)));
  if (named.length === 0 || named.some((code) => takesCode(few[0]!.key, code))) return { ranked: [...ranked] };
  const j = few.findIndex((s, i) => i > 0 && named.some((code) => takesCode(s.key, code)));
  const out = ranked.map((s) => ({ ...s }));
  [out[0]!.probability, out[j]!.probability] = [out[j]!.probability, out[0]!.probability];
  out.sort((a, b) => b.probability - a.probability);
  const code = named.find((c) => takesCode(ranked[j]!.key, c))!;
  return { ranked: out, preferred: { code, from: ranked[0]!.key, to: ranked[j]!.key } };
}
