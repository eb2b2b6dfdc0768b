import { type TSchema, Type } from '@sinclair/typebox';
import type { Page } from '../services/transaction-log.ts';
import type { StatusReply } from './envelope.ts';

export const PageQuery = Type.Object({
  page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1' }),
  ),
});

const Link = Type.Object({
  url: Type.Union([Type.String(), Type.Null()]),
  label: Type.String(),
  active: Type.Boolean(),
});
const NullableUrl = Type.Union([Type.String(), Type.Null()]);
const NullableInt = Type.Union([Type.Integer(), Type.Null()]);

/** Laravel's LengthAwarePaginator keys beside `data` at the top level of the envelope, as Chaingateway pages. */
export function PaginatedEnvelope<T extends TSchema>(item: T) {
  return Type.Object({
    status: Type.Integer(),
    ok: Type.Literal(true),
    message: Type.String(),
    current_page: Type.Integer(),
    data: Type.Array(item),
    first_page_url: Type.String({ description: 'Relative to this server: the path and `?page=1`' }),
    from: NullableInt,
    last_page: Type.Integer(),
    last_page_url: Type.String(),
    links: Type.Array(Link),
    next_page_url: NullableUrl,
    path: Type.String({ description: "The list's path on this server" }),
    per_page: Type.Integer(),
    prev_page_url: NullableUrl,
    to: NullableInt,
    total: Type.Integer(),
  });
}

/**
 * One page in Laravel's shape. The page URLs are relative to the server (`/api/v2/tron/transactions?page=2`):
 * built from the route's canonical `path`, never from the request's Host header or URL, which the client
 * writes (a hostile Host would otherwise become a link the answer hands out).
 */
export function sendPage<T>(
  path: string,
  reply: StatusReply,
  page: Page<T>,
  message: string,
  /** Other query parameters the page links keep (`order=desc`), already encoded. */
  keep = '',
) {
  const url = (n: number) => `${path}?${keep ? `${keep}&` : ''}page=${n}`;
  const lastPage = Math.max(1, Math.ceil(page.total / page.perPage));
  const from = page.items.length === 0 ? null : (page.page - 1) * page.perPage + 1;
  const links = [
    { url: page.page > 1 ? url(page.page - 1) : null, label: '&laquo; Previous', active: false },
    ...pageWindow(page.page, lastPage).map((n) =>
      n === null
        ? { url: null, label: '...', active: false }
        : { url: url(n), label: String(n), active: n === page.page },
    ),
    { url: page.page < lastPage ? url(page.page + 1) : null, label: 'Next &raquo;', active: false },
  ];
  reply.code(200);
  return {
    status: 200,
    ok: true as const,
    message,
    current_page: page.page,
    data: page.items,
    first_page_url: url(1),
    from,
    last_page: lastPage,
    last_page_url: url(lastPage),
    links,
    next_page_url: page.page < lastPage ? url(page.page + 1) : null,
    path,
    per_page: page.perPage,
    prev_page_url: page.page > 1 ? url(page.page - 1) : null,
    to: from === null ? null : from + page.items.length - 1,
    total: page.total,
  };
}

/** Laravel's link window: the first and last two pages and three either side of the current one. */
function pageWindow(current: number, last: number): (number | null)[] {
  const wanted = new Set<number>([1, 2, last - 1, last]);
  for (let n = current - 3; n <= current + 3; n++) wanted.add(n);
  const pages = [...wanted].filter((n) => n >= 1 && n <= last).sort((a, b) => a - b);
  const out: (number | null)[] = [];
  for (const n of pages) {
    const previous = out.at(-1);
    if (typeof previous === 'number' && n > previous + 1) out.push(null);
    out.push(n);
  }
  return out;
}
