/**
 * The judge on an OpenAI-compatible chat endpoint (the LLM settings: LLM_BASE_URL, LLM_MODEL, LLM_API_KEY, or
 * ROUTER_JUDGE_MODEL for another model there). One token is asked for, with the top log-probabilities of the first
 * token where the endpoint returns them (OpenAI, vLLM, llama.cpp's server): P(yes) against P(no). An endpoint that
 * returns none is read by its answer: yes → 1, no → 0.
 */
import OpenAI from 'openai';
import {
  answerWord,
  questionText,
  SYSTEM_PROMPT,
  yesProbability,
  type JudgeProvider,
  type JudgeQuestion,
} from './question';

export interface OpenAiJudgeOptions {
  model: string;
  baseURL?: string;
  apiKey?: string;
  /** The client's own limit; the router's timeout (bounded-judge.ts) is what callers wait at most. */
  timeoutMs?: number;
}

const TOP_LOGPROBS = 10;

export class OpenAiJudge implements JudgeProvider {
  readonly name: string;
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAiJudgeOptions) {
    this.name = `llm:${options.model}`;
    this.client = new OpenAI({
      apiKey: options.apiKey ?? 'unused',
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      timeout: options.timeoutMs ?? 15_000,
      maxRetries: 0,
    });
  }

  async judge(question: JudgeQuestion): Promise<number | undefined> {
    const completion = await this.client.chat.completions.create({
      model: this.options.model,
      temperature: 0,
      max_tokens: 1,
      logprobs: true,
      top_logprobs: TOP_LOGPROBS,
      messages: [
        { role: 'system', content: SYSTEM_PROMPT },
        { role: 'user', content: questionText(question) },
      ],
    });
    const choice = completion.choices[0];
    const first = choice?.logprobs?.content?.[0];
    if (first?.top_logprobs?.length) {
      const mass = { yes: 0, no: 0 };
      for (const { token, logprob } of first.top_logprobs) {
        const word = answerWord(token);
        if (word) mass[word] += Math.exp(logprob);
      }
      const p = yesProbability(mass.yes, mass.no);
      if (p !== undefined) return p;
    }
    const word = answerWord(choice?.message.content ?? '');
    return word === 'yes' ? 1 : word === 'no' ? 0 : undefined;
  }
}
