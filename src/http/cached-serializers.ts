import fastJsonStringify from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify';
import { compiledOnce, compiledOnFirstUse } from './compiled-once.ts';

// The routes add no shared schemas (`addSchema`), so a response schema alone decides its serializer.
const serializerOf = compiledOnce((schema) => {
  const serializer = compiledOnFirstUse(() => fastJsonStringify(schema));
  return (data: unknown) => serializer()(data);
});

/** Fastify's response serializers, compiled once per process, by the first answer each writes (compiled-once.ts). */
export const cachedSerializerCompiler: FastifySerializerCompiler<object> = ({ schema }) =>
  serializerOf(schema);
