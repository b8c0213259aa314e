/** Whether a step's `when` holds (docs/chains.md): pure, the same in the workflow and in `mapChainStep`. */
import type { StepCondition } from './chain';
import { resolvePointer, sameJson } from './pointer';

/**
 * Whether `when` holds in `document`. A pointer that names nothing (a skipped step, a field the result lacks) holds
 * for no operator, `not_equals` included: a step never runs on a value that is not there.
 */
export function conditionHolds(document: unknown, when: StepCondition): boolean {
  const found = resolvePointer(document, when.$ref);
  if (!found.ok) return false;
  if (when.in !== undefined) return when.in.some((value) => sameJson(found.value, value));
  if (when.not_equals !== undefined) return !sameJson(found.value, when.not_equals);
  return sameJson(found.value, when.equals);
}
