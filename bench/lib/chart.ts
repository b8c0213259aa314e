/**
 * A hand-written SVG chart of a delivery run: for each rate and fault level, direct HTTP beside Agent-Reach —
 * processed share, duplicate side effects and P95 latency, one panel each.
 */
import type { ComparedResult } from './compare';

const COLORS = { direct: '#9aa5b1', reach: '#2f6fdf' } as const;

interface Panel {
  title: string;
  value: (r: ComparedResult) => number;
  label: (v: number) => string;
  max: (values: number[]) => number;
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

function panelSvg(panel: Panel, results: ComparedResult[], x0: number, width: number, height: number): string {
  const cells = [...new Set(results.map((r) => `${r.rate_per_min}|${r.fault_rate}`))];
  const values = results.map(panel.value);
  const max = panel.max(values) || 1;
  const top = 40;
  const bottom = height - 50;
  const groupWidth = (width - 40) / Math.max(1, cells.length);
  const bar = Math.min(40, groupWidth / 3);
  const parts = [
    `<text x="${x0 + width / 2}" y="22" text-anchor="middle" font-size="14" font-weight="bold">${escape(panel.title)}</text>`,
  ];
  parts.push(`<line x1="${x0 + 30}" y1="${bottom}" x2="${x0 + width - 10}" y2="${bottom}" stroke="#333"/>`);
  cells.forEach((cell, index) => {
    const [rate, fault] = cell.split('|').map(Number) as [number, number];
    const gx = x0 + 30 + index * groupWidth + groupWidth / 2;
    (['direct', 'reach'] as const).forEach((mode, m) => {
      const result = results.find((r) => r.mode === mode && r.rate_per_min === rate && r.fault_rate === fault);
      if (!result) return;
      const value = panel.value(result);
      const h = ((bottom - top) * Math.max(0, value)) / max;
      const x = gx - bar + m * bar;
      parts.push(`<rect x="${x}" y="${bottom - h}" width="${bar - 2}" height="${h}" fill="${COLORS[mode]}"/>`);
      parts.push(
        `<text x="${x + bar / 2 - 1}" y="${bottom - h - 4}" text-anchor="middle" font-size="10">${escape(panel.label(value))}</text>`,
      );
    });
    parts.push(`<text x="${gx}" y="${bottom + 16}" text-anchor="middle" font-size="11">${rate}/min</text>`);
    parts.push(`<text x="${gx}" y="${bottom + 30}" text-anchor="middle" font-size="11">${fault * 100} % faults</text>`);
  });
  return parts.join('\n');
}

export function deliveryChart(results: ComparedResult[], subtitle: string): string {
  const width = 1350;
  const height = 360;
  const panels: Panel[] = [
    {
      title: 'Processed (share of messages)',
      value: (r) => r.processed_rate * 100,
      label: (v) => `${v.toFixed(1)}%`,
      max: () => 100,
    },
    {
      title: 'Duplicate side effects (count)',
      value: (r) => r.duplicate_effects,
      label: (v) => `${v}`,
      max: (v) => Math.max(1, ...v) * 1.15,
    },
    {
      title: 'P95 end-to-end latency (ms)',
      value: (r) => r.p95_ms ?? 0,
      label: (v) => `${Math.round(v)}`,
      max: (v) => Math.max(...v) * 1.1,
    },
  ];
  const body = panels
    .map((panel, index) =>
      panelSvg(panel, results, index * (width / panels.length), width / panels.length, height - 30),
    )
    .join('\n');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
${body}
<rect x="20" y="${height - 22}" width="12" height="12" fill="${COLORS.direct}"/><text x="38" y="${height - 12}" font-size="12">direct HTTP (3 tries, no idempotency)</text>
<rect x="300" y="${height - 22}" width="12" height="12" fill="${COLORS.reach}"/><text x="318" y="${height - 12}" font-size="12">Agent-Reach</text>
<text x="${width - 10}" y="${height - 12}" text-anchor="end" font-size="11" fill="#555">${escape(subtitle)}</text>
</svg>
`;
}
