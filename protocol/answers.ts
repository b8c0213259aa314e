/**
 * Several questions asked at once (an `input_required` receipt's `input.questions`, docs/protocol.md): the caller
 * answers each under its key, all in one reply or over several. The message's run keeps the partial answers (in its
 * state, rebuilt from its history: as durable as the message) and the message waits, showing only the questions still
 * open, until every one is answered; then the agent gets one follow-up turn whose caller turn holds every answer by
 * key, and their params merged in the order of the questions. Pure functions, safe to import from workflows.
 */
import type { Answer, CallerTurn, InputRequest } from './turns';

/** A reply as the run takes it (messages/message.ts's ReplyInput). */
type Reply = Omit<CallerTurn, 'role' | 'at'>;

/** How the run's reply update refuses answers that do not fit the questions (its validator's message starts so). */
export const INVALID_ANSWERS = 'invalid_answers';

export interface AnswerIssue {
  location: string;
  message: string;
}

/** The keys of the questions a message waits for, or none when it asks one question. */
export function questionKeys(asked: InputRequest): string[] {
  return asked.questions ? Object.keys(asked.questions) : [];
}

/**
 * What is wrong with `reply` as an answer to `asked` (what the message waits for now), if anything: one question is
 * answered with intent, params or payload; several only with `answers`, each under the key of a question still open.
 */
export function replyIssues(asked: InputRequest, reply: Reply): AnswerIssue[] {
  if (!asked.questions) {
    if (!reply.answers) return [];
    return [{ location: 'answers', message: 'the agent asked one question: reply with intent, params or payload' }];
  }
  const open = questionKeys(asked).join(', ');
  if (!reply.answers)
    return [
      { location: 'answers', message: `the agent asked several questions: answer them by key in answers (${open})` },
    ];
  const issues: AnswerIssue[] = [];
  if (reply.intent !== undefined || reply.params !== undefined || reply.payload !== undefined)
    issues.push({ location: 'answers', message: 'with answers, give no intent, params or payload beside them' });
  const keys = Object.keys(reply.answers);
  if (keys.length === 0) issues.push({ location: 'answers', message: `answer at least one of: ${open}` });
  for (const key of keys) {
    if (!Object.hasOwn(asked.questions, key))
      issues.push({ location: `answers.${key}`, message: `no open question has this key (open: ${open})` });
  }
  return issues;
}

/** What taking an answer came to: the answers kept so far, and the questions still open or the reply to deliver. */
export type Taken =
  | { answered: Record<string, Answer>; open: InputRequest; reply?: undefined }
  | { answered: Record<string, Answer>; open?: undefined; reply: Reply };

/**
 * Takes `reply` (checked by replyIssues) for the questions `asked` (all of them, as the agent asked) with the answers
 * `answered` before. Later answers to a key replace earlier ones.
 */
export function takeAnswers(asked: InputRequest, answered: Record<string, Answer>, reply: Reply): Taken {
  if (!asked.questions || !reply.answers) return { answered: {}, reply };
  const all = { ...answered, ...reply.answers };
  const keys = questionKeys(asked);
  const openKeys = keys.filter((key) => !Object.hasOwn(all, key));
  if (openKeys.length > 0) {
    const questions = Object.fromEntries(openKeys.map((key) => [key, asked.questions![key]!]));
    return { answered: all, open: { ...asked, questions } };
  }
  return { answered: {}, reply: combinedReply(keys, all, reply) };
}

/** The one caller turn of every answer: by key, in the order of the questions, with their params merged. */
function combinedReply(keys: string[], all: Record<string, Answer>, last: Reply): Reply {
  const answers = Object.fromEntries(keys.map((key) => [key, all[key]!]));
  const params = Object.assign({}, ...keys.map((key) => all[key]!.params ?? {})) as Record<string, unknown>;
  return {
    ...(Object.keys(params).length > 0 ? { params } : {}),
    answers,
    ...(last.a2a_message_id === undefined ? {} : { a2a_message_id: last.a2a_message_id }),
  };
}
