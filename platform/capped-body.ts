/**
 * Reading what an agent, a card host or a webhook receiver answers, up to a cap: the body is streamed and the read
 * stops (the connection is dropped) as soon as more than the cap has come, or at once when its Content-Length says
 * so. Nothing is read whole and checked afterwards, so a 50 MB answer costs at most the cap in memory.
 */

/** The body went past the cap; thrown by the capped body's readers (`text()`, `json()`, `arrayBuffer()`, the stream). */
export class AnswerTooLargeError extends Error {
  readonly code = 'ANSWER_TOO_LARGE';
  constructor(readonly maxBytes: number) {
    super(`the answer is larger than ${maxBytes} bytes`);
    this.name = 'AnswerTooLargeError';
  }
}

/** Statuses whose response cannot carry a body (the Response constructor refuses one). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** `response` with a body that fails with {@link AnswerTooLargeError} past `maxBytes`; `onTooLarge` hears when it does. */
export function cappedResponse(response: Response, maxBytes: number, onTooLarge?: () => void): Response {
  if (!response.body || NULL_BODY_STATUSES.has(response.status)) return response;
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  let seen = 0;
  const tooLarge = (controller: TransformStreamDefaultController<Uint8Array>) => {
    onTooLarge?.();
    controller.error(new AnswerTooLargeError(maxBytes)); // cancels the source: the rest is never read
  };
  const limited = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start(controller) {
        if (declared > maxBytes) tooLarge(controller);
      },
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > maxBytes) return tooLarge(controller);
        controller.enqueue(chunk);
      },
    }),
  );
  return new Response(limited, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** The body as text, at most `maxBytes` of it (else {@link AnswerTooLargeError}). */
export function readCappedText(response: Response, maxBytes: number): Promise<string> {
  return cappedResponse(response, maxBytes).text();
}

/** What is read of an answer whose content does not matter (a cancel notice's, a reply_to notification's). */
export const IGNORED_ANSWER_MAX_BYTES = 64 * 1024;

/** Reads and drops an answer whose content does not matter (a notice's), at most `maxBytes` of it; never throws. */
export async function drainCapped(response: Response, maxBytes: number): Promise<void> {
  await cappedResponse(response, maxBytes)
    .arrayBuffer()
    .catch(() => undefined);
}
