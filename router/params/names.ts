/**
 * Names as values of free-text properties whose schema says they hold a name: an organisation by its legal form
 * ("上海迅达贸易有限公司", "Shenzhen Bright Co., Ltd.") where the property names an organisation ("企业名称", "company
 * name"), and a person's name standing as its own clause after the property's term ("个人抬头，写张三就行") where it
 * names a person ("个人姓名", "full name"); in English, a capitalised name after a word that introduces one ("name
 * Wang Jie", "made out to John Smith"). What the schema does not say it takes is never filled this way.
 */
import { nameAt } from './address';
import { headTerm, type PropertySchema, stringFits } from './schema';

const ORGANISATION_WORDS = /企业|公司|单位|机构|组织|company|organi[sz]ation|business|employer/i;
const PERSON_WORDS = /个人|姓名|名字|人名|person|individual|full name/i;

const ZH_LEGAL_FORMS = /(?:股份有限公司|有限责任公司|有限公司|集团公司|集团|公司|研究院|研究所|事务所|工作室)/g;
/** Characters an organisation's name does not start with: what a request writes before it. */
const NOT_NAME_START = /[的给为是开要请帮替把和与或在到从向写叫跟由抬头票]/;
const EN_ORGANISATION =
  /\b((?:[A-Z][A-Za-z&'-]*\.?\s+){0,6}[A-Z][A-Za-z&'-]*,?\s+(?:Co\.,?\s*Ltd\.?|Company Limited|Ltd\.?|Limited|Inc\.?|LLC|Corp\.?|Corporation|GmbH|PLC))(?=[\s,;。，]|$)/;

/** A label the run of characters before a legal form may begin with: "公司名称北京某某科技有限公司". */
const NAME_LABEL = /^(?:公司|企业|单位)?(?:名称|全称|名字)(?:是|为|叫)?/;

/** The first organisation name in `text`: Chinese by its legal form and the run of characters before it, or English. */
export function organisationIn(text: string): string | undefined {
  for (const form of text.matchAll(ZH_LEGAL_FORMS)) {
    let start = form.index!;
    while (
      start > 0 &&
      /[\u4e00-\u9fff（）()]/.test(text.charAt(start - 1)) &&
      !NOT_NAME_START.test(text.charAt(start - 1)) &&
      form.index! - start < 30
    )
      start--;
    const name = text.slice(start, form.index! + form[0].length).replace(NAME_LABEL, '');
    if (name.length - form[0].length >= 2) return name;
  }
  return text.match(EN_ORGANISATION)?.[1]?.trim();
}

const CLAUSE_END = /[，,。；;！!？?\n]/;
const LEAD = /^\s*(?:写|是|为|叫|用)?\s*/;
const TAIL = /\s*(?:就行|就好|就可以|即可|吧|的)?\s*$/;

/** A Chinese personal name that is a clause of its own after `term` ("抬头，张三，…", "抬头，写张三就行"). */
export function personAfter(text: string, term: string): string | undefined {
  const at = text.indexOf(term);
  if (at < 0) return undefined;
  const [own = '', ...next] = text.slice(at + term.length).split(CLAUSE_END);
  // The term's own clause counts when a verb hands it the name ("名字写王杰"); else the next clauses ("抬头，张三").
  const clauses = [...(/^\s*(?:写|是|为|叫|用)/.test(own) ? [own] : []), ...next.slice(0, 2)];
  for (const clause of clauses) {
    const body = clause.replace(LEAD, '').replace(TAIL, '');
    const name = nameAt(body, 0);
    if (name && name === body) return name;
  }
  return undefined;
}

/** Words that introduce a person's name in English. */
const EN_PERSON_CUE =
  /\b(?:(?:full |my )?name(?:d| is)?|under the name(?: of)?|in the name of|made out to|addressed to)\s*[:=]?\s*/gi;
/** A person's name as English writes it: two to four capitalised words. */
const EN_PERSON_NAME = /^[A-Z][a-z]+(?:[ -][A-Z][a-z]+){1,3}\b/;

/**
 * An English personal name introduced as one ("name Wang Jie", "in the name of Li Na") or by the property's own
 * name ("title Li Lei" for `title`).
 */
function englishPersonIn(text: string, property: string): string | undefined {
  const own = property.replace(/[_-]+/g, ' ').trim();
  const cues = [...text.matchAll(EN_PERSON_CUE)];
  if (/^[a-z ]{3,}$/i.test(own)) cues.push(...text.matchAll(new RegExp(`\\b${own}\\s*[:=]?\\s*`, 'gi')));
  for (const cue of cues) {
    const name = text.slice(cue.index! + cue[0].length).match(EN_PERSON_NAME)?.[0];
    if (name) return name;
  }
  return undefined;
}

/** Words Chinese introduces a person's name with, whatever the property's term ("名字写王杰"). */
const ZH_PERSON_TERMS = ['名字', '姓名'];

/** The name `schema` says the property `name` holds, when the text gives one. */
export function nameFor(text: string, schema: PropertySchema, name = ''): string | undefined {
  const about = `${schema.title ?? ''} ${schema.description ?? ''}`;
  const organisation = ORGANISATION_WORDS.test(about) ? organisationIn(text) : undefined;
  if (organisation && stringFits(organisation, schema)) return organisation;
  const term = headTerm(schema);
  if (!term || !PERSON_WORDS.test(about)) return undefined;
  const tail = term.length > 2 ? term.slice(-2) : term;
  const person =
    personAfter(text, text.includes(term) ? term : tail) ??
    ZH_PERSON_TERMS.map((t) => personAfter(text, t)).find(Boolean) ??
    englishPersonIn(text, name);
  return person && stringFits(person, schema) ? person : undefined;
}
