// Module resolution hooks (node:module register): every module URL the process resolves is appended,
// one a line, to the file MODULE_TRACE_FILE names. Used by tests that prove what a command never loads.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  const file = process.env.MODULE_TRACE_FILE;
  if (file) appendFileSync(file, `${resolved.url}\n`);
  return resolved;
}
