import fastJsonStringify from 'fast-json-stringify';
import type { FastifySerializerCompiler } from 'fastify';
import { compiledOnce } from './compiled-once.ts';

// The routes add no shared schemas (`addSchema`), so a response schema alone decides its serializer.
const serializerOf = compiledOnce((schema) => fastJsonStringify(schema));

/** Fastify's response serializers, compiled once per process (compiled-once.ts). */
export const cachedSerializerCompiler: FastifySerializerCompiler<object> = ({ schema }) =>
  serializerOf(schema);
