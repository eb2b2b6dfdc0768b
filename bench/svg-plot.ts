/** A curve a benchmark measured, drawn into `docs/images/<file>` by `npm run bench -- --write`. */
export interface Plot {
  /** File name under docs/images, ending in `.svg`. */
  file: string;
  title: string;
  x: { label: string; log?: boolean };
  y: { label: string };
  series: { name: string; points: [x: number, y: number][] }[];
}

const WIDTH = 640;
const HEIGHT = 360;
const MARGIN = { left: 72, right: 16, top: 40, bottom: 64 };
const COLOURS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c'];

const xmlText = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** 1, 2, 5, 10, 20, 50…: a tick step giving about `count` ticks over `span`. */
function niceStep(span: number, count: number): number {
  const raw = span / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].find((m) => m * magnitude >= raw) ?? 10;
  return step * magnitude;
}

function ticks(min: number, max: number, log: boolean): number[] {
  if (log) {
    const out: number[] = [];
    for (let t = 2 ** Math.floor(Math.log2(min)); t <= max; t *= 2) if (t >= min) out.push(t);
    return out;
  }
  const step = niceStep(max - min || 1, 5);
  const out: number[] = [];
  for (let t = Math.ceil(min / step) * step; t <= max + step / 1e6; t += step) out.push(t);
  return out;
}

const label = (n: number) =>
  Math.abs(n) >= 10_000 ? `${+(n / 1000).toFixed(1)}k` : `${+n.toFixed(Math.abs(n) < 10 ? 2 : 0)}`;

/** A line chart (one polyline per series, axes from 0 on y) as a standalone SVG document. */
export function lineChart(plot: Plot): string {
  const points = plot.series.flatMap((s) => s.points);
  if (points.length === 0) throw new Error(`${plot.file}: nothing to plot`);
  const xs = points.map(([x]) => x);
  const log = plot.x.log ?? false;
  const [xMin, xMax] = [Math.min(...xs), Math.max(...xs)];
  const yMax = Math.max(...points.map(([, y]) => y)) * 1.05 || 1;
  const fx = (x: number) => (log ? Math.log2(x) : x);
  const innerW = WIDTH - MARGIN.left - MARGIN.right;
  const innerH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const sx = (x: number) =>
    MARGIN.left + (xMax === xMin ? innerW / 2 : ((fx(x) - fx(xMin)) / (fx(xMax) - fx(xMin))) * innerW);
  const sy = (y: number) => MARGIN.top + innerH - (y / yMax) * innerH;
  const px = (n: number) => n.toFixed(1);

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<title>${xmlText(plot.title)}</title>`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#fff"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="14" font-weight="bold">${xmlText(plot.title)}</text>`,
  ];
  for (const t of ticks(0, yMax, false)) {
    parts.push(
      `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${px(sy(t))}" y2="${px(sy(t))}" stroke="#e5e7eb"/>`,
      `<text x="${MARGIN.left - 6}" y="${px(sy(t) + 4)}" text-anchor="end">${label(t)}</text>`,
    );
  }
  for (const t of ticks(xMin, xMax, log)) {
    parts.push(
      `<text x="${px(sx(t))}" y="${HEIGHT - MARGIN.bottom + 18}" text-anchor="middle">${label(t)}</text>`,
    );
  }
  parts.push(
    `<line x1="${MARGIN.left}" x2="${MARGIN.left}" y1="${MARGIN.top}" y2="${MARGIN.top + innerH}" stroke="#111"/>`,
    `<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${MARGIN.top + innerH}" y2="${MARGIN.top + innerH}" stroke="#111"/>`,
    `<text x="${MARGIN.left + innerW / 2}" y="${HEIGHT - MARGIN.bottom + 38}" text-anchor="middle">${xmlText(plot.x.label)}</text>`,
    `<text transform="translate(16 ${MARGIN.top + innerH / 2}) rotate(-90)" text-anchor="middle">${xmlText(plot.y.label)}</text>`,
  );
  plot.series.forEach((series, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const path = [...series.points].sort(([a], [b]) => a - b).map(([x, y]) => `${px(sx(x))},${px(sy(y))}`);
    parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${path.join(' ')}"/>`);
    const legendX = MARGIN.left + 8 + i * 180;
    parts.push(
      `<rect x="${legendX}" y="${HEIGHT - 18}" width="12" height="3" fill="${colour}"/>`,
      `<text x="${legendX + 18}" y="${HEIGHT - 13}">${xmlText(series.name)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
