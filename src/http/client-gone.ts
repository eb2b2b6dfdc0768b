import type { FastifyReply } from 'fastify';

/**
 * A signal aborted when the client closes its connection before its answer is sent, so work it waits for
 * can be dropped. Fastify's `request.signal` is not this one: it follows the request's `close`, which Node
 * emits as soon as the body has been read.
 */
export function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  const response = reply.raw;
  const gone = () => {
    if (!response.writableFinished) controller.abort();
  };
  if (response.destroyed || reply.request.raw.socket?.destroyed === true) gone();
  else response.once('close', gone);
  return controller.signal;
}
