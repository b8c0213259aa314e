/** The side-by-side table bench:routing prints: one row per provider and part, the figures the goals are stated in. */

/** The slice of a part's decision report the table reads. */
export interface PartFigures {
  n: number;
  in_scope_accepted_and_right: number | null;
  negatives_refused: number | null;
  per_kind: Record<string, { n: number; accepted_and_right?: number | null; refused?: number | null }>;
  p95_decision_ms: number;
  routed_parameters?: { labelled: number; exact_of_routed_right: number | null; exact_of_labelled: number | null };
}

const KINDS: [string, string][] = [
  ['in_scope', 'in_scope right'],
  ['cross_lingual', 'cross_lingual right'],
  ['near_miss', 'near_miss refused'],
  ['out_of_scope', 'out_of_scope refused'],
];

const percent = (x: number | null | undefined) => (x === null || x === undefined ? '—' : `${(x * 100).toFixed(1)} %`);

function kindCell(figures: PartFigures, kind: string): string {
  const of = figures.per_kind[kind];
  if (!of) return '—';
  return `${percent(of.accepted_and_right ?? of.refused)} (${of.n})`;
}

function parametersCell(figures: PartFigures): string {
  const p = figures.routed_parameters;
  return p && p.labelled > 0
    ? `${percent(p.exact_of_routed_right)} / ${percent(p.exact_of_labelled)} (${p.labelled})`
    : '—';
}

export function partsTable(set: string, results: Record<string, { steady: Record<string, PartFigures> }>): string {
  const header = [
    'provider',
    'part',
    'n',
    'all in-scope right',
    ...KINDS.map(([, title]) => title),
    'negatives refused',
    'params exact: of routed right / of labelled',
    'p95 ms',
  ];
  const lines = [
    `${set}: right (in-scope kinds) or refused (others), per part`,
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
  ];
  for (const [provider, result] of Object.entries(results)) {
    for (const [part, figures] of Object.entries(result.steady)) {
      const cells = [
        provider,
        part,
        String(figures.n),
        percent(figures.in_scope_accepted_and_right),
        ...KINDS.map(([kind]) => kindCell(figures, kind)),
        percent(figures.negatives_refused),
        parametersCell(figures),
        figures.p95_decision_ms.toFixed(1),
      ];
      lines.push(`| ${cells.join(' | ')} |`);
    }
  }
  return lines.join('\n');
}
