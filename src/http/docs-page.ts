/**
 * A self-contained HTML rendering of the OpenAPI description for `GET /docs`: no scripts, no assets
 * fetched from elsewhere, so it works on a gateway with no internet.
 */
interface Schema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  pattern?: string;
}

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
}

interface OpenApiDocument {
  info: { title: string; version: string; description?: string };
  paths?: Record<string, Record<string, Operation>>;
}

const escapeHtml = (text: unknown) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function typeOf(schema: Schema): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return alternatives.map(typeOf).join(' | ');
  if (schema.type === 'array' && schema.items) return `${typeOf(schema.items)}[]`;
  return Array.isArray(schema.type) ? schema.type.join(' | ') : (schema.type ?? 'any');
}

function renderSchema(schema: Schema | undefined, depth = 0): string {
  if (!schema || depth > 6) return '';
  const target = schema.type === 'array' && schema.items ? schema.items : schema;
  if (!target.properties) return '';
  const required = new Set(target.required ?? []);
  const rows = Object.entries(target.properties).map(
    ([name, prop]) =>
      `<li><code>${escapeHtml(name)}</code> <span class="t">${escapeHtml(typeOf(prop))}</span>${
        required.has(name) ? ' <b>required</b>' : ''
      }${prop.description ? ` — ${escapeHtml(prop.description)}` : ''}${renderSchema(prop, depth + 1)}</li>`,
  );
  return `<ul>${rows.join('')}</ul>`;
}

function renderOperation(method: string, path: string, op: Operation): string {
  const params = (op.parameters ?? [])
    .map(
      (p) =>
        `<li><code>${escapeHtml(p.name)}</code> (${escapeHtml(p.in)}${p.required ? ', required' : ''}) <span class="t">${escapeHtml(
          typeOf(p.schema ?? {}),
        )}</span>${p.description || p.schema?.description ? ` — ${escapeHtml(p.description ?? p.schema?.description)}` : ''}</li>`,
    )
    .join('');
  const body = Object.values(op.requestBody?.content ?? {})[0]?.schema;
  const responses = Object.entries(op.responses ?? {})
    .map(([status, res]) => {
      const schema = Object.values(res.content ?? {})[0]?.schema;
      const data = Number(status) < 400 ? schema?.properties?.['data'] : undefined;
      return `<li><b>${escapeHtml(status)}</b> ${escapeHtml(res.description ?? '')}${
        data
          ? ` — <code>data</code>: <span class="t">${escapeHtml(typeOf(data))}</span>${renderSchema(data)}`
          : ''
      }</li>`;
    })
    .join('');
  return `<section class="op"><h3><span class="m ${escapeHtml(method)}">${escapeHtml(method.toUpperCase())}</span> <code>${escapeHtml(
    path,
  )}</code></h3><p>${escapeHtml(op.summary ?? '')}${op.security?.length ? '' : ' <i>(no token)</i>'}</p>${
    op.description ? `<p>${escapeHtml(op.description)}</p>` : ''
  }${params ? `<h4>Parameters</h4><ul>${params}</ul>` : ''}${
    body ? `<h4>Body</h4>${renderSchema(body) || `<p class="t">${escapeHtml(typeOf(body))}</p>`}` : ''
  }<h4>Responses</h4><ul>${responses}</ul></section>`;
}

export function renderDocsPage(doc: OpenApiDocument): string {
  const byTag = new Map<string, string[]>();
  for (const [path, operations] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(operations)) {
      const tag = op.tags?.[0] ?? 'other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), renderOperation(method, path, op)]);
    }
  }
  const sections = [...byTag.entries()]
    .map(([tag, ops]) => `<h2 id="${escapeHtml(tag)}">${escapeHtml(tag)}</h2>${ops.join('')}`)
    .join('');
  const toc = [...byTag.keys()]
    .map((tag) => `<a href="#${escapeHtml(tag)}">${escapeHtml(tag)}</a>`)
    .join(' · ');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(doc.info.title)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
code{background:#f3f3f3;padding:0 .25em;border-radius:3px}.op{border-top:1px solid #ddd;padding:.5rem 0}
.m{display:inline-block;min-width:4.5em;font-weight:700}.get{color:#0a7}.post{color:#07c}.put,.patch{color:#a60}
.delete{color:#c22}.t{color:#666;font-family:monospace}pre{white-space:pre-wrap}h4{margin:.5rem 0 0}</style></head>
<body><h1>${escapeHtml(doc.info.title)} <small>${escapeHtml(doc.info.version)}</small></h1>
<pre>${escapeHtml(doc.info.description ?? '')}</pre><p>Machine-readable: <a href="/openapi.json">/openapi.json</a></p>
<nav>${toc}</nav>${sections}</body></html>`;
}
