/**
 * Sizes known at submission: a step (or compensation) whose templates read only the chain's input comes to the
 * same message whenever it runs, so one over the message size cap is refused before anything starts (413
 * `payload_too_large`, naming the step) rather than failing when its turn comes. Pure.
 */
import type { StepAddress } from './chain';
import type { PlannedStep } from './plan';
import { refsIn, sourceOf } from './pointer';
import { stepMessage } from './step-message';

export interface SizeIssue {
  step: string;
  code: 'payload_too_large';
  message: string;
}

function readsOnlyInput(address: StepAddress): boolean {
  return [address.input, address.payload].every((template) =>
    refsIn(template).every(({ ref }) => sourceOf(ref).kind === 'input'),
  );
}

/** The first step or compensation whose message, known now, is over `maxBytes`. */
export function knownSizeIssue(steps: readonly PlannedStep[], input: unknown, maxBytes: number): SizeIssue | undefined {
  const document = { input, steps: {} };
  for (const step of steps) {
    for (const [address, what] of [
      [step, 'its message'],
      [step.compensate, 'its compensation'],
    ] as const) {
      if (!address || !readsOnlyInput(address)) continue;
      const built = stepMessage(address, document, maxBytes);
      if (!built.ok && built.code === 'payload_too_large')
        return { step: step.id, code: 'payload_too_large', message: `step ${step.id}: ${what}: ${built.message}` };
    }
  }
  return undefined;
}
