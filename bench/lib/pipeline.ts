/**
 * The seed's three-agent pipeline: intent analysis → quality check → conclusion. Each logical message (a ticket)
 * goes through the three hops in order; each agent does its hop's work, then sends the next hop itself.
 */
export const PIPELINE = ['intent', 'quality', 'conclusion'] as const;
export type Role = (typeof PIPELINE)[number];

/** Capability each role offers on the gateway. */
export const CAPABILITY: Record<Role, string> = {
  intent: 'analyse_intent',
  quality: 'check_quality',
  conclusion: 'conclude',
};

/** The role after `role`, or undefined for the last one. */
export function nextRole(role: Role): Role | undefined {
  return PIPELINE[PIPELINE.indexOf(role) + 1];
}

/** The gateway message id of one hop of a logical message: the same on every retry, so a resend is idempotent. */
export function hopMessageId(key: string, role: Role): string {
  return `${key}.${role}`;
}

export function isRole(value: string): value is Role {
  return (PIPELINE as readonly string[]).includes(value);
}
