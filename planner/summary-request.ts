/**
 * A request's last clause that asks only to be told how it went — "then tell me the result", "and let me know",
 * "notify me when done", "然后告诉我结果", "把结果发给我" — is no step for an agent: the plan's chain gets
 * `summary: {request}` instead, and its aggregate carries the summary (chains/aggregate.ts). A clause that names
 * what to tell ("告诉我订单明细", "tell me the refund status") asks for work and stays a step. Pure.
 */

const EN = new RegExp(
  '^(?:and\\s+)?(?:then\\s+|finally\\s+)?(?:please\\s+)?' +
    '(?:tell me|let me know|notify me|inform me|update me|report back(?: to me)?|report to me|send me|email me|text me|message me|ping me|give me)' +
    '(?:\\s+(?:the\\s+|a\\s+)?(?:result|results|outcome|summary|how it went|what happened|everything|about it|back))?' +
    "(?:\\s+(?:when|once|after)\\s+(?:it is|it's|it has|you are|you're|you have|everything is|all is)?\\s*(?:done|finished|complete|completed|over))?" +
    '\\s*[.!]*$',
  'i',
);

const ZH = new RegExp(
  '^(?:然后|最后|再|之后|完了|并且)?(?:请)?(?:把)?(?:处理)?(?:结果|情况|进展)?' +
    '(?:告诉我|通知我|告知我|发给我|发我|跟我说|和我说|给我说|让我知道|回复我|汇报给我|同步给我|反馈给我)' +
    '(?:一下|一声)?(?:处理)?(?:结果|情况|进展)?(?:吧)?[。！!]*$',
);

/** Whether the clause only asks to be told how the chain went. */
export function isSummaryRequest(text: string): boolean {
  const clause = text.trim();
  return clause.length > 0 && (EN.test(clause) || ZH.test(clause));
}
