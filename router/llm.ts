/**
 * The LLM, used only when configured and only where rules and similarity fall short: choosing among the
 * shortlist when nothing passed the threshold, and extracting parameters the heuristics missed. Both use
 * structured output, so the answer is a JSON document of a known shape, never free text to parse.
 */
import OpenAI from 'openai';
import { describe, type CapabilityCandidate } from './candidates';

export interface LlmAssistant {
  /** The key of the capability that should handle the intent, or null when none should. */
  chooseCapability(intent: string, shortlist: CapabilityCandidate[]): Promise<string | null>;
  /** Parameter values stated in the intent, shaped by the capability's JSON Schema. */
  extractParameters(intent: string, schema: unknown): Promise<Record<string, unknown>>;
}

export interface OpenAiLlmOptions {
  model: string;
  baseURL?: string;
  apiKey?: string;
  timeoutMs?: number;
}

export class OpenAiLlm implements LlmAssistant {
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAiLlmOptions) {
    this.client = new OpenAI({
      apiKey: options.apiKey ?? 'unused',
      ...(options.baseURL ? { baseURL: options.baseURL } : {}),
      timeout: options.timeoutMs ?? 15_000,
      maxRetries: 1,
    });
  }

  private async json(system: string, user: string, name: string, schema: Record<string, unknown>): Promise<unknown> {
    const completion = await this.client.chat.completions.create({
      model: this.options.model,
      temperature: 0,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: user },
      ],
      response_format: { type: 'json_schema', json_schema: { name, schema, strict: false } },
    });
    const content = completion.choices[0]?.message.content;
    if (!content) throw new Error('the model returned no content');
    return JSON.parse(content) as unknown;
  }

  async chooseCapability(intent: string, shortlist: CapabilityCandidate[]): Promise<string | null> {
    const keys = shortlist.map((c) => c.key);
    const listing = shortlist.map((c) => `- ${c.key}: ${describe(c)}`).join('\n');
    const answer = (await this.json(
      'You route requests to capabilities. Choose the one capability whose description covers the request, ' +
        'respecting what each description excludes. Answer null when none covers it.',
      `Capabilities:\n${listing}\n\nRequest: ${intent}`,
      'route',
      { type: 'object', properties: { capability: { enum: [...keys, null] } }, required: ['capability'] },
    )) as { capability?: string | null };
    return answer.capability && keys.includes(answer.capability) ? answer.capability : null;
  }

  async extractParameters(intent: string, schema: unknown): Promise<Record<string, unknown>> {
    const answer = await this.json(
      'Extract the parameters stated in the request, following the JSON Schema. Leave out what the request does not state.',
      `Request: ${intent}`,
      'parameters',
      schema as Record<string, unknown>,
    );
    return answer !== null && typeof answer === 'object' && !Array.isArray(answer)
      ? (answer as Record<string, unknown>)
      : {};
  }
}
